//go:build !linux

package sys

import (
	"os"
	"syscall"
)

// MemFile reports that memfd_create is Linux's.
func MemFile(name string, size int64) (*os.File, error) { return nil, ErrNotLinux }

// EINTR is the errno of a call a signal handler interrupted.
const EINTR = syscall.EINTR

// RawBarrier answers ENOSYS: the raw calls are Linux's.
func RawBarrier(readyW, wakeR int) syscall.Errno { return syscall.ENOSYS }

// RawWriteByte answers ENOSYS: the raw calls are Linux's.
func RawWriteByte(fd int) syscall.Errno { return syscall.ENOSYS }

// RawReadMessages answers ENOSYS: the raw calls are Linux's.
func RawReadMessages(fd int, buf []byte, n int) (int, syscall.Errno) { return 0, syscall.ENOSYS }

// RawWriteMessages answers ENOSYS: the raw calls are Linux's.
func RawWriteMessages(fds []int, buf []byte, loops int) (int, syscall.Errno) {
	return 0, syscall.ENOSYS
}

// RawClose answers ENOSYS: the raw calls are Linux's.
func RawClose(fd int) syscall.Errno { return syscall.ENOSYS }

// RawPair answers ENOSYS: the raw calls are Linux's.
func RawPair(pipe bool) (r, w int, e syscall.Errno) { return -1, -1, syscall.ENOSYS }

// RawWait4 answers ENOSYS: the raw calls are Linux's.
func RawWait4(pid int) (status uint32, e syscall.Errno) { return 0, syscall.ENOSYS }

// SharedInt64s reports that the memory kdelta shares with forked children
// is Linux's.
func SharedInt64s(n int) ([]int64, func() error, error) { return nil, nil, ErrNotLinux }
