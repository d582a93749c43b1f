//go:build !linux

package sys

// MakeRaw reports that kdelta sets up only a Linux guest's serial port.
func MakeRaw(fd int) error { return ErrNotLinux }

// Drain reports that kdelta drains only a Linux guest's serial port.
func Drain(fd int) error { return ErrNotLinux }
