package sys

import "golang.org/x/sys/unix"

// MakeRaw puts the terminal fd in raw mode, as cfmakeraw(3) does, so that
// bytes written to it reach the line unchanged: the tty layer otherwise
// turns "\n" into "\r\n" and would corrupt the binary frames a guest sends
// over its serial port.
func MakeRaw(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CRTSCTS
	t.Cflag |= unix.CS8 | unix.CLOCAL
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}

// Drain waits until everything written to the terminal fd has been
// transmitted, as tcdrain(3) does; a guest drains its serial port before
// it powers off, or the end of its result would be lost.
func Drain(fd int) error {
	// TCSBRK with a non-zero argument is tcdrain: it sends no break.
	return unix.IoctlSetInt(fd, unix.TCSBRK, 1)
}
