package sys

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Mount mounts source of type fstype on target, as mount(2) with no flags.
// The guest's /init mounts proc, sysfs, devtmpfs, debugfs and tracefs with
// it.
func Mount(source, target, fstype, data string) error {
	return unix.Mount(source, target, fstype, 0, data)
}

// Unmount detaches the file system mounted on dir (the last one, where
// several are stacked), with the mounts under it, and forgets it if this
// process mounted it. The detach is lazy (MNT_DETACH): another process
// that has a file open there, or an automount of tracefs under debugfs,
// would otherwise make it fail with EBUSY and leave the mount behind.
func Unmount(dir string) error {
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
		return fmt.Errorf("umount %s: %w", dir, err)
	}
	forgetMounted(dir)
	return nil
}

// isFSType tells whether the file system at dir has the magic number
// magic. statfs follows an automount point, so asking about debugfs's
// tracing directory mounts tracefs there, as any access would.
func isFSType(dir string, magic int64) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	// f_type is 32 bits wide on s390x, 64 elsewhere; the magics fit in 32.
	return uint32(st.Type) == uint32(magic)
}

// MountTracefs makes tracefs reachable as perf does when it runs as root:
// when neither TracefsDir nor debugfs's tracing directory holds tracefs,
// it mounts tracefs on TracefsDir (nosuid, nodev, noexec, as systemd
// does) and records it for Mounted. It returns whether it mounted; it
// does nothing and returns ErrNotRoot when the process is not root.
func MountTracefs() (bool, error) {
	if isFSType(TracefsDir, unix.TRACEFS_MAGIC) || isFSType(DebugfsDir+"/tracing", unix.TRACEFS_MAGIC) {
		return false, nil
	}
	return mountMissing("tracefs", TracefsDir)
}

// MountDebugfs mounts debugfs on DebugfsDir unless it is mounted there
// already, and records it for Mounted. It returns whether it mounted; it
// does nothing and returns ErrNotRoot when the process is not root.
func MountDebugfs() (bool, error) {
	if isFSType(DebugfsDir, unix.DEBUGFS_MAGIC) {
		return false, nil
	}
	return mountMissing("debugfs", DebugfsDir)
}

func mountMissing(fstype, dir string) (bool, error) {
	if unix.Geteuid() != 0 {
		return false, ErrNotRoot
	}
	if err := unix.Mount(fstype, dir, fstype, unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return false, fmt.Errorf("mount %s on %s: %w", fstype, dir, err)
	}
	noteMounted(fstype, dir)
	return true, nil
}

func noteMounted(fstype, dir string) {
	mounted.Lock()
	defer mounted.Unlock()
	mounted.list = append(mounted.list, mountRecord{fstype, dir})
}

func forgetMounted(dir string) {
	mounted.Lock()
	defer mounted.Unlock()
	kept := mounted.list[:0]
	for _, m := range mounted.list {
		if m.dir != dir {
			kept = append(kept, m)
		}
	}
	mounted.list = kept
}
