package sysinfo

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/kdelta/kdelta/internal/sys"
)

// maxKmsgRecords bounds how much of the kernel ring buffer is read.
const maxKmsgRecords = 1 << 20

// readKmsg returns the kernel log records in /dev/kmsg (path) that are
// still in the ring buffer, one per line, without waiting for new ones.
//
// /dev/kmsg returns one record per read(2) and EAGAIN at the end when
// opened non-blocking. os.File would hand the descriptor to the runtime
// poller, which waits for more records instead of returning, so the file
// is read with plain system calls.
func readKmsg(path string) (string, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)

	var b strings.Builder
	buf := make([]byte, 8192) // a record is at most about 1 KiB of text
	for range maxKmsgRecords {
		n, err := syscall.Read(fd, buf)
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return b.String(), nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EPIPE):
			// The record we were at was overwritten: the next read
			// resumes at the oldest one still there.
			continue
		case err != nil:
			return b.String(), &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return b.String(), nil
		}
		// "PRI,SEQ,TIME,FLAGS;MESSAGE\n KEY=VALUE\n...": keep the message.
		b.WriteString(sys.KmsgText(string(buf[:n])))
		b.WriteByte('\n')
	}
	return b.String(), nil
}
