package sys

import "golang.org/x/sys/unix"

// IsTerminal tells whether fd is a terminal: whether it answers the
// terminal ioctl TCGETS, as isatty(3) does. A character device is not
// enough: /dev/null is one, and a question asked on it is answered by
// end of file.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
