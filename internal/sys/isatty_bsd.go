//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package sys

import "golang.org/x/sys/unix"

// IsTerminal tells whether fd is a terminal: whether it answers the BSD
// terminal ioctl TIOCGETA, as isatty(3) does there. kdelta results rm asks
// on a terminal, on a laptop too.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TIOCGETA)
	return err == nil
}
