//go:build !linux

package sys

// PowerOff reports that kdelta powers off only a Linux guest.
func PowerOff() error { return ErrNotLinux }
