package sys

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// A KmsgTail reads the kernel's log messages (/dev/kmsg) printed after it
// was opened: a run's own, such as "sched: RT throttling activated".
type KmsgTail struct{ fd int }

// OpenKmsgTail opens /dev/kmsg past its last record. It fails without
// the privilege to read the kernel log (dmesg_restrict).
func OpenKmsgTail() (*KmsgTail, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: "/dev/kmsg", Err: err}
	}
	if _, err := unix.Seek(fd, 0, unix.SEEK_END); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "seek", Path: "/dev/kmsg", Err: err}
	}
	return &KmsgTail{fd: fd}, nil
}

// Messages returns the text of every record printed since the tail was
// opened or last read. Records overwritten before they were read are
// skipped (EPIPE), as dmesg skips them.
func (k *KmsgTail) Messages() ([]string, error) {
	var msgs []string
	buf := make([]byte, 8192) // a record is at most 8 KiB (printk's CONSOLE_EXT_LOG_MAX)
	for {
		n, err := unix.Read(k.fd, buf)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return msgs, nil
		case errors.Is(err, unix.EPIPE), errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return msgs, &os.PathError{Op: "read", Path: "/dev/kmsg", Err: err}
		case n == 0:
			return msgs, nil
		}
		msgs = append(msgs, KmsgText(string(buf[:n])))
	}
}

// Close closes the tail.
func (k *KmsgTail) Close() error { return unix.Close(k.fd) }
