//go:build !linux

package sys

import (
	"errors"
	"fmt"
)

// Unmount reports that only Linux is supported.
func Unmount(dir string) error {
	return fmt.Errorf("umount %s: %w", dir, errors.ErrUnsupported)
}

// MountTracefs reports that tracefs is Linux's.
func MountTracefs() (bool, error) {
	return false, fmt.Errorf("tracefs: %w", errors.ErrUnsupported)
}

// MountDebugfs reports that debugfs is Linux's.
func MountDebugfs() (bool, error) {
	return false, fmt.Errorf("debugfs: %w", errors.ErrUnsupported)
}
