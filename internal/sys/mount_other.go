//go:build !linux

package sys

import "fmt"

// Mount reports that mounting is Linux's here.
func Mount(source, target, fstype, data string) error {
	return fmt.Errorf("mount %s on %s: %w", fstype, target, ErrNotLinux)
}

// Unmount reports that unmounting is Linux's here.
func Unmount(dir string) error {
	return fmt.Errorf("umount %s: %w", dir, ErrNotLinux)
}

// MountTracefs reports that tracefs is Linux's.
func MountTracefs() (bool, error) {
	return false, fmt.Errorf("tracefs: %w", ErrNotLinux)
}

// MountDebugfs reports that debugfs is Linux's.
func MountDebugfs() (bool, error) {
	return false, fmt.Errorf("debugfs: %w", ErrNotLinux)
}
