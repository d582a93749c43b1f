//go:build !linux

package sys

// LoadModule reports that kernel modules are Linux's.
func LoadModule(fd int, params string) error { return ErrNotLinux }
