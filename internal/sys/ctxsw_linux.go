package sys

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The raw calls of the context_switch workload (the powerpc selftest's
// yield, pipe and futex tests). Like the messaging worker's calls they are
// nosplit and call nothing but the nosplit raw system call entry, so a
// task running them, on a locked thread or forked (ForkArena.Fork), never
// reaches a stack check and the Go scheduler never preempts it.

// Futex operations of <linux/futex.h>, the same on every architecture;
// x/sys/unix does not declare them.
const (
	futexWait    = 0
	futexWake    = 1
	futexPrivate = 128 // FUTEX_PRIVATE_FLAG
)

func futexOp(op uintptr, private bool) uintptr {
	if private {
		return op | futexPrivate
	}
	return op
}

// RawSchedYield calls sched_yield(2), which never fails.
//
//go:nosplit
func RawSchedYield() {
	unix.RawSyscallNoError(unix.SYS_SCHED_YIELD, 0, 0, 0)
}

// RawFutexWait sleeps in FUTEX_WAIT while *addr holds val, as the
// selftest's mutex_lock does; private adds FUTEX_PRIVATE_FLAG, for a word
// only this process's threads use. It returns the call's errno: 0 after a
// wake-up, EAGAIN when *addr no longer held val, EINTR after a signal.
//
//go:nosplit
func RawFutexWait(addr *uint32, val uint32, private bool) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexOp(futexWait, private), uintptr(val), 0, 0, 0)
	return e
}

// RawFutexWaitFor is RawFutexWait for at most ns nanoseconds; it returns
// ETIMEDOUT when they passed.
//
//go:nosplit
func RawFutexWaitFor(addr *uint32, val uint32, private bool, ns int64) unix.Errno {
	if ns < 1 {
		ns = 1
	}
	ts := unix.NsecToTimespec(ns)
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexOp(futexWait, private), uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
	return e
}

// RawFutexWake wakes up to n tasks sleeping on addr (FUTEX_WAKE).
//
//go:nosplit
func RawFutexWake(addr *uint32, n int, private bool) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexOp(futexWake, private), uintptr(n), 0, 0, 0)
	return e
}

// RawReadToken reads the one-byte token of a ping-pong into *tok,
// retrying on EINTR. eof is true when the write end is closed.
//
//go:nosplit
func RawReadToken(fd int, tok *byte) (eof bool, e unix.Errno) {
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(tok)), 1)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return false, e
		}
		return n == 0, 0
	}
}

// RawWriteToken writes the one-byte token *tok, retrying on EINTR.
//
//go:nosplit
func RawWriteToken(fd int, tok *byte) unix.Errno {
	for {
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(tok)), 1)
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

// RawMonotonicNs reads CLOCK_MONOTONIC, in nanoseconds, with a raw
// clock_gettime(2): a system call, not the vDSO, but one that a nosplit
// loop can make (once a second, as the selftest's alarm handler runs),
// on a raw thread too.
//
//go:nosplit
//go:norace
func RawMonotonicNs() int64 {
	var ts unix.Timespec
	return rawMonotonic(&ts)
}

// ETIMEDOUT is the errno of a futex wait whose time ran out.
const ETIMEDOUT = unix.ETIMEDOUT

// RawReadN reads exactly n bytes into p, looping on short reads and
// retrying on EINTR. eof is true when the write end closed first.
//
//go:nosplit
//go:norace
func RawReadN(fd int, p *byte, n int) (eof bool, e unix.Errno) {
	for off := 0; off < n; {
		r, e := rawErr(rawsys6(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Add(unsafe.Pointer(p), off)), uintptr(n-off), 0, 0, 0))
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return false, e
		case r == 0:
			return true, 0
		}
		off += int(r)
	}
	return false, 0
}

// RawWriteN writes the n bytes at p, looping on short writes and retrying
// on EINTR.
//
//go:nosplit
//go:norace
func RawWriteN(fd int, p *byte, n int) unix.Errno {
	for off := 0; off < n; {
		r, e := rawErr(rawsys6(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Add(unsafe.Pointer(p), off)), uintptr(n-off), 0, 0, 0))
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return e
		}
		off += int(r)
	}
	return 0
}

// A RawCPUMask is an affinity mask that a forked task applies to itself
// with a raw sched_setaffinity, as perf's and the selftests' children pin
// themselves after fork rather than being pinned by their parent.
type RawCPUMask struct{ set unix.CPUSet }

// NewRawCPUMask returns the mask of cpus.
func NewRawCPUMask(cpus []int) (RawCPUMask, error) {
	var m RawCPUMask
	for _, c := range cpus {
		if c < 0 || c >= len(m.set)*64 {
			return m, fmt.Errorf("CPU %d out of range", c)
		}
		m.set.Set(c)
	}
	return m, nil
}

// Apply pins the calling task to the mask.
//
//go:nosplit
//go:norace
func (m *RawCPUMask) Apply() unix.Errno {
	_, e := rawErr(rawsys6(unix.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(m.set), uintptr(unsafe.Pointer(&m.set)), 0, 0, 0))
	return e
}

// RawPingPong is perf bench sched pipe's worker loop on a locked thread:
// loops round trips of a 4-byte token, reading from rfd first when
// readFirst, else writing to wfd first. Nosplit through and through, like
// the calls above, so that sysmon's preemption of a goroutine running for
// over 10 ms is never taken inside the loop: taking it would hand the
// locked thread's P to another thread and wake the runtime's idle
// threads every 10 ms of the window (seen as futex wake-ups of three
// other threads, 220 a second, before this loop was nosplit). eof says
// the other end closed first.
//
//go:nosplit
func RawPingPong(rfd, wfd, loops int, readFirst bool) (eof bool, e unix.Errno) {
	var tok [4]byte
	for i := 0; i < loops; i++ {
		if readFirst {
			if eof, e = RawReadN(rfd, &tok[0], len(tok)); eof || e != 0 {
				return eof, e
			}
			if e = RawWriteN(wfd, &tok[0], len(tok)); e != 0 {
				return false, e
			}
			continue
		}
		if e = RawWriteN(wfd, &tok[0], len(tok)); e != 0 {
			return false, e
		}
		if eof, e = RawReadN(rfd, &tok[0], len(tok)); eof || e != 0 {
			return eof, e
		}
	}
	return false, 0
}

// RawMembarrierGlobal makes one membarrier(MEMBARRIER_CMD_GLOBAL) call
// for each element of lat and stores its latency there, in ms, timed with
// RawMonotonicNs; it returns how many calls it made. Each call blocks for
// an RCU grace period. Through the runtime's syscall path the thread's P
// would be handed off at every call and idle runtime threads woken (380
// wake-ups a second besides the caller's own, measured); raw and nosplit,
// the caller keeps its P (GOMAXPROCS is raised for every caller) and only
// sysmon looks in, at most once per 10 ms.
//
//go:nosplit
func RawMembarrierGlobal(lat []float64) (int, unix.Errno) {
	for i := range lat {
		t0 := RawMonotonicNs()
		_, _, e := unix.RawSyscall(unix.SYS_MEMBARRIER, MembarrierGlobal, 0, 0)
		t1 := RawMonotonicNs()
		if e != 0 {
			return i, e
		}
		lat[i] = float64(t1-t0) / 1e6
	}
	return len(lat), 0
}
