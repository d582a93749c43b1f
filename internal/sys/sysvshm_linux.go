package sys

import (
	"errors"

	"golang.org/x/sys/unix"
)

// RemoveOrphanShm removes System V shared memory segment id if process
// creator made it and no process is attached to it any more, and tells
// whether it did. A PostgreSQL postmaster killed outright leaves such a
// segment behind (the 56-byte interlock it keys on its data directory);
// checking the creator keeps a segment that id has come to name since
// safe. A segment that no longer exists is not an error.
func RemoveOrphanShm(id, creator int) (bool, error) {
	var d unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &d); err != nil {
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EIDRM) {
			return false, nil
		}
		return false, err
	}
	if int(d.Cpid) != creator || d.Nattch != 0 {
		return false, nil
	}
	if _, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil); err != nil {
		return false, err
	}
	return true, nil
}
