//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package sys

// IsTerminal answers false where kdelta knows no terminal ioctl: a
// question that needs a terminal (results rm) then asks for --yes.
func IsTerminal(fd int) bool { return false }
