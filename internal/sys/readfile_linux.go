package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// RawReadFile reads up to len(buf) bytes of the file at path (a
// NUL-terminated byte string) with raw openat, read and close calls — the
// three system calls a C program's fopen/fgets/fclose of a /proc file
// makes — and allocates nothing. It returns the byte count, or the errno.
func RawReadFile(path []byte, buf []byte) (int, unix.Errno) {
	cwd := unix.AT_FDCWD
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(&path[0])), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	unix.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}
