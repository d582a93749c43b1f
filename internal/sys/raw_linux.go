package sys

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Syscall numbers of the calls a null-syscall loop may use, per architecture
// through x/sys/unix.
var nullSyscalls = map[string]uintptr{
	"getppid": unix.SYS_GETPPID,
	"gettid":  unix.SYS_GETTID,
	"getpid":  unix.SYS_GETPID,
	"getpgid": unix.SYS_GETPGID,
	"getuid":  unix.SYS_GETUID,
}

// NullSyscall returns the number of a system call that takes no arguments
// that matter and never blocks.
func NullSyscall(name string) (uintptr, bool) {
	nr, ok := nullSyscalls[name]
	return nr, ok
}

// RawNull enters the kernel once with system call nr and no arguments.
// It never blocks and never allocates.
func RawNull(nr uintptr) uintptr {
	r, _ := unix.RawSyscallNoError(nr, 0, 0, 0)
	return r
}

// RawNullLoop enters the kernel n times with system call nr, as perf
// bench syscall basic's loop does. It is nosplit, so the Go scheduler
// cannot preempt it: a preemptible loop was moved between the runtime's
// threads every 10 ms of the window, about 1,000 context switches a
// second that the C loop does not make (bench/fidelity: 0.0001 a call).
// Where raw threads are to be had, NullLoopThread runs it with no
// runtime beside it at all.
//
//go:nosplit
func RawNullLoop(nr uintptr, n int) {
	for i := 0; i < n; i++ {
		unix.RawSyscallNoError(nr, 0, 0, 0)
	}
}

// NullLoopThread runs RawNullLoop's loop on a raw thread (StartRawThread)
// and returns how long the loop took, read on that thread with raw
// clock_gettime calls on either side of it. The caller waits in Join with
// its P given back, so sysmon sleeps: in the window the loop's thread is
// the only one of the process that runs, as in perf bench syscall basic's
// single-threaded process. A loop on a goroutine holds its P for the
// whole window instead, and sysmon then wakes every 10 ms to look at it
// and signals it to yield, on its CPU when the process is pinned. Where
// the architecture has no raw threads it returns ErrNoRawThread.
func NullLoopThread(nr uintptr, n int) (time.Duration, error) {
	a := &nullLoop{nr: nr, n: n}
	th, err := StartRawThread(nullLoopBody, unsafe.Pointer(a))
	if err != nil {
		return 0, err
	}
	if err := th.Join(); err != nil {
		return 0, err
	}
	runtime.KeepAlive(a)
	return time.Duration(a.end - a.start), nil
}

// nullLoop is a raw thread's null-syscall loop: its orders, and the
// CLOCK_MONOTONIC readings on either side of it.
type nullLoop struct {
	nr         uintptr
	n          int
	start, end int64
	ts         unix.Timespec
}

//go:nosplit
//go:norace
func nullLoopBody(p unsafe.Pointer) {
	a := (*nullLoop)(p)
	a.start = rawMonotonic(&a.ts)
	for i := 0; i < a.n; i++ {
		rawsys6(a.nr, 0, 0, 0, 0, 0, 0)
	}
	a.end = rawMonotonic(&a.ts)
}

// rawMonotonic reads CLOCK_MONOTONIC into ts with a clock_gettime(2)
// through rawsys6, as a raw thread may, and returns it in nanoseconds.
//
//go:nosplit
//go:norace
func rawMonotonic(ts *unix.Timespec) int64 {
	rawsys6(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(ts)), 0, 0, 0, 0)
	return int64(ts.Sec)*1e9 + int64(ts.Nsec)
}

// rawErr turns rawsys6's results into a count and an errno. The Raw*
// functions a raw thread runs (StartRawThread) call rawsys6 with it
// rather than unix.RawSyscall.
//
//go:nosplit
//go:norace
func rawErr(r, e uintptr) (uintptr, unix.Errno) { return r, unix.Errno(e) }

// RawRead reads into b with a raw read(2). It may block: see the package
// comment. It returns the byte count or the errno.
func RawRead(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

// RawWrite writes b with a raw write(2). It may block: see the package comment.
func RawWrite(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

// RawReadFull reads exactly len(b) bytes, looping on short reads as the C
// references do. It returns an error on EOF or a failed read.
func RawReadFull(fd int, b []byte) error {
	for off := 0; off < len(b); {
		n, e := RawRead(fd, b[off:])
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return fmt.Errorf("read fd %d: %w", fd, e)
		}
		if n == 0 {
			return fmt.Errorf("read fd %d: unexpected EOF", fd)
		}
		off += n
	}
	return nil
}

// RawWriteFull writes all of b, looping on short writes.
func RawWriteFull(fd int, b []byte) error {
	for off := 0; off < len(b); {
		n, e := RawWrite(fd, b[off:])
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return fmt.Errorf("write fd %d: %w", fd, e)
		}
		off += n
	}
	return nil
}

// RawKill sends sig to pid with a raw kill(2) and returns the errno (0 on
// success). kill never blocks the caller.
func RawKill(pid, sig int) unix.Errno {
	_, _, e := unix.RawSyscall(unix.SYS_KILL, uintptr(pid), uintptr(sig), 0)
	return e
}

// Errno values the workloads compare against.
const (
	EINVAL = unix.EINVAL
	ESRCH  = unix.ESRCH
	EPERM  = unix.EPERM
	EAGAIN = unix.EAGAIN
)

// Gettid returns the calling thread's id.
func Gettid() int { return unix.Gettid() }

// Pipe returns a pipe's read and write ends, blocking and close-on-exec.
func Pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, fmt.Errorf("pipe2: %w", err)
	}
	return p[0], p[1], nil
}

// SocketPair returns a connected AF_UNIX SOCK_STREAM pair, blocking and
// close-on-exec.
func SocketPair() (a, b int, err error) {
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, fmt.Errorf("socketpair: %w", err)
	}
	return p[0], p[1], nil
}

// Close closes fd, ignoring errors (for cleanup paths).
func Close(fd int) { _ = unix.Close(fd) }
