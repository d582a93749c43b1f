//go:build !linux

package sys

// RemoveOrphanShm reports that kdelta cleans up System V shared memory
// only on Linux.
func RemoveOrphanShm(id, creator int) (bool, error) { return false, ErrNotLinux }
