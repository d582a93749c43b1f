//go:build !linux

package sys

import (
	"syscall"
	"time"
)

// RawSchedYield does nothing: the raw calls are Linux's.
func RawSchedYield() {}

// RawFutexWait answers ENOSYS: futexes are Linux's.
func RawFutexWait(addr *uint32, val uint32, private bool) syscall.Errno { return syscall.ENOSYS }

// RawFutexWaitFor answers ENOSYS: futexes are Linux's.
func RawFutexWaitFor(addr *uint32, val uint32, private bool, ns int64) syscall.Errno {
	return syscall.ENOSYS
}

// RawFutexWake answers ENOSYS: futexes are Linux's.
func RawFutexWake(addr *uint32, n int, private bool) syscall.Errno { return syscall.ENOSYS }

// RawReadToken answers ENOSYS: the raw calls are Linux's.
func RawReadToken(fd int, tok *byte) (eof bool, e syscall.Errno) { return false, syscall.ENOSYS }

// RawWriteToken answers ENOSYS: the raw calls are Linux's.
func RawWriteToken(fd int, tok *byte) syscall.Errno { return syscall.ENOSYS }

// RawMonotonicNs reads the Go runtime's monotonic clock: the raw
// clock_gettime is Linux's.
func RawMonotonicNs() int64 { return int64(time.Since(processStart)) }

var processStart = time.Now()

// ETIMEDOUT is the errno of a wait whose time ran out.
const ETIMEDOUT = syscall.ETIMEDOUT
