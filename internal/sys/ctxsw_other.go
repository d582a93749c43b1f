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

// RawReadN answers ENOSYS: the raw calls are Linux's.
func RawReadN(fd int, p *byte, n int) (eof bool, e syscall.Errno) { return false, syscall.ENOSYS }

// RawWriteN answers ENOSYS: the raw calls are Linux's.
func RawWriteN(fd int, p *byte, n int) syscall.Errno { return syscall.ENOSYS }

// A RawCPUMask is an affinity mask; affinity is Linux's.
type RawCPUMask struct{}

// NewRawCPUMask reports that affinity is Linux's.
func NewRawCPUMask(cpus []int) (RawCPUMask, error) { return RawCPUMask{}, ErrNotLinux }

// Apply answers ENOSYS: affinity is Linux's.
func (m *RawCPUMask) Apply() syscall.Errno { return syscall.ENOSYS }

// RawPingPong answers ENOSYS: the raw calls are Linux's.
func RawPingPong(rfd, wfd, loops int, readFirst bool) (eof bool, e syscall.Errno) {
	return false, syscall.ENOSYS
}

// RawMembarrierGlobal answers ENOSYS: membarrier is Linux's.
func RawMembarrierGlobal(lat []float64) (int, syscall.Errno) { return 0, syscall.ENOSYS }
