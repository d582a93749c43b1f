//go:build !linux

package sys

import (
	"syscall"
	"time"
)

// NullSyscall knows no system call numbers: they are Linux's.
func NullSyscall(name string) (uintptr, bool) { return 0, false }

// RawNull enters no kernel: the raw calls are Linux's.
func RawNull(nr uintptr) uintptr { return 0 }

// RawNullLoop enters no kernel: the raw calls are Linux's.
func RawNullLoop(nr uintptr, n int) {}

// NullLoopThread reports that raw threads are Linux's.
func NullLoopThread(nr uintptr, n int) (time.Duration, error) { return 0, ErrNoRawThread }

// RawRead answers ENOSYS: the raw calls are Linux's.
func RawRead(fd int, b []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }

// RawWrite answers ENOSYS: the raw calls are Linux's.
func RawWrite(fd int, b []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }

// RawReadFull reports that the raw calls are Linux's.
func RawReadFull(fd int, b []byte) error { return ErrNotLinux }

// RawWriteFull reports that the raw calls are Linux's.
func RawWriteFull(fd int, b []byte) error { return ErrNotLinux }

// RawKill answers ENOSYS: the raw calls are Linux's.
func RawKill(pid, sig int) syscall.Errno { return syscall.ENOSYS }

// Errno values the workloads compare against.
const (
	EINVAL = syscall.EINVAL
	ESRCH  = syscall.ESRCH
	EPERM  = syscall.EPERM
	EAGAIN = syscall.EAGAIN
)

// Gettid answers -1, no thread: thread ids are Linux's.
func Gettid() int { return -1 }

// Pipe reports that kdelta's raw pipes are Linux's.
func Pipe() (r, w int, err error) { return -1, -1, ErrNotLinux }

// SocketPair reports that kdelta's raw socket pairs are Linux's.
func SocketPair() (a, b int, err error) { return -1, -1, ErrNotLinux }

// Close does nothing: no call of this package opens a descriptor here.
func Close(fd int) {}
