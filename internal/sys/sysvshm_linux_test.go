package sys

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRemoveOrphanShm checks that a segment is removed only when its
// creator is the one named and nothing is attached, and that a segment
// already gone is no error.
func TestRemoveOrphanShm(t *testing.T) {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 56, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Fatalf("shmget: %v", err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	if removed, err := RemoveOrphanShm(id, os.Getpid()+1); removed || err != nil {
		t.Errorf("another creator: removed %v, %v", removed, err)
	}
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatalf("shmat: %v", err)
	}
	if removed, err := RemoveOrphanShm(id, os.Getpid()); removed || err != nil {
		t.Errorf("attached: removed %v, %v", removed, err)
	}
	unix.SysvShmDetach(b)
	if removed, err := RemoveOrphanShm(id, os.Getpid()); !removed || err != nil {
		t.Errorf("orphan: removed %v, %v; want removed", removed, err)
	}
	if removed, err := RemoveOrphanShm(id, os.Getpid()); removed || err != nil {
		t.Errorf("gone: removed %v, %v; want neither", removed, err)
	}
}
