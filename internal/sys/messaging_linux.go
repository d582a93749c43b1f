package sys

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MemFile returns an anonymous in-memory file (memfd_create(2)) of size
// bytes, close-on-exec. Workloads hand it to their helper processes, which
// write their tallies into it at offsets of their own with pwrite: unlike a
// pipe it never fills up, so nobody has to drain it inside a timed window,
// and unlike a temporary file it never touches a disk.
func MemFile(name string, size int64) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create %s: %w", name, err)
	}
	if err := unix.Ftruncate(fd, size); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("ftruncate memfd %s to %d bytes: %w", name, size, err)
	}
	return os.NewFile(uintptr(fd), "memfd:"+name), nil
}

// EINTR is the errno of a call a signal handler interrupted; the raw
// loops retry on it.
const EINTR = unix.EINTR

// The functions below are a messaging worker's whole measured life after
// its barrier. They are nosplit and call nothing but the nosplit raw
// system call entry, so the goroutine running them never reaches a stack
// check: that is where the Go scheduler preempts a goroutine sysmon has
// seen running for 10 ms, and preempting a goroutine locked to its thread
// hands the thread's P to another thread and back, futex calls and
// context switches the C reference never makes. (Asynchronous preemption
// by signal is the runner's to switch off, with GODEBUG=asyncpreemptoff=1.)

// RawBarrier is hackbench's ready(): it writes one byte to readyW, then
// polls wakeR until it is readable. It returns the errno of a failed call.
//
//go:nosplit
//go:norace
func RawBarrier(readyW, wakeR int) unix.Errno {
	if e := RawWriteByte(readyW); e != 0 {
		return e
	}
	pfd := unix.PollFd{Fd: int32(wakeR), Events: unix.POLLIN}
	for {
		_, e := rawErr(rawsys6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, 0, 0, 0, 0))
		if e != unix.EINTR {
			return e
		}
	}
}

// RawWriteByte writes one byte to fd, retrying on EINTR.
//
//go:nosplit
//go:norace
func RawWriteByte(fd int) unix.Errno {
	var b [1]byte
	for {
		n, e := rawErr(rawsys6(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), 1, 0, 0, 0))
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return e
		case n == 1:
			return 0
		}
	}
}

// RawReadMessages reads n messages of len(buf) bytes from fd, looping on
// short reads, and returns how many it read whole. It stops early on a
// failed read (with its errno) or at end of file (with errno 0).
//
//go:nosplit
//go:norace
func RawReadMessages(fd int, buf []byte, n int) (int, unix.Errno) {
	for i := 0; i < n; i++ {
		for off := 0; off < len(buf); {
			r, e := rawErr(rawsys6(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[off])), uintptr(len(buf)-off), 0, 0, 0))
			switch {
			case e == unix.EINTR:
				continue
			case e != 0:
				return i, e
			case r == 0:
				return i, 0
			}
			off += int(r)
		}
	}
	return n, 0
}

// RawWriteMessages writes buf to each of fds in turn, loops times, looping
// on short writes, and returns how many messages it wrote whole. It stops
// early on a failed write, with its errno.
//
//go:nosplit
//go:norace
func RawWriteMessages(fds []int, buf []byte, loops int) (int, unix.Errno) {
	done := 0
	for l := 0; l < loops; l++ {
		for _, fd := range fds {
			for off := 0; off < len(buf); {
				r, e := rawErr(rawsys6(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&buf[off])), uintptr(len(buf)-off), 0, 0, 0))
				if e == unix.EINTR {
					continue
				}
				if e != 0 {
					return done, e
				}
				off += int(r)
			}
			done++
		}
	}
	return done, 0
}

// RawClose closes fd with a raw close(2), for forked children
// (ForkArena.Fork).
//
//go:nosplit
//go:norace
func RawClose(fd int) unix.Errno {
	_, e := rawErr(rawsys6(unix.SYS_CLOSE, uintptr(fd), 0, 0, 0, 0, 0))
	return e
}

// RawPair makes one blocking, close-on-exec pair as Pipe or SocketPair
// does, with raw calls, for a raw thread: the first fd is read, the
// second written.
//
//go:nosplit
//go:norace
func RawPair(pipe bool) (r, w int, e unix.Errno) {
	var fds [2]int32
	var errno uintptr
	if pipe {
		_, errno = rawsys6(unix.SYS_PIPE2, uintptr(unsafe.Pointer(&fds)), unix.O_CLOEXEC, 0, 0, 0, 0)
	} else {
		_, errno = rawsys6(unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0, uintptr(unsafe.Pointer(&fds)), 0, 0)
	}
	if errno != 0 {
		return -1, -1, unix.Errno(errno)
	}
	return int(fds[0]), int(fds[1]), 0
}

// RawWait4 reaps child pid, whatever signal it ends with (__WALL), with a
// raw wait4(2) retried on EINTR, and returns its wait status
// (ExitError says what it means) or the errno.
//
//go:nosplit
//go:norace
func RawWait4(pid int) (status uint32, e unix.Errno) {
	for {
		var ws uint32
		_, errno := rawsys6(unix.SYS_WAIT4, uintptr(pid), uintptr(unsafe.Pointer(&ws)), unix.WALL, 0, 0, 0)
		if errno == uintptr(unix.EINTR) {
			continue
		}
		return ws, unix.Errno(errno)
	}
}

// SharedInt64s maps n int64s of anonymous memory shared with every child
// forked afterwards (ForkArena.Fork), where children leave their tallies at no
// cost of a system call, and returns them with the function that unmaps
// them.
func SharedInt64s(n int) ([]int64, func() error, error) {
	if n < 1 {
		n = 1
	}
	b, err := unix.Mmap(-1, 0, 8*n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %d shared bytes: %w", 8*n, err)
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&b[0])), n), func() error { return unix.Munmap(b) }, nil
}
