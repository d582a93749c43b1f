//go:build !linux

package sys

import "syscall"

// RawReadFile answers ENOSYS: the raw calls are Linux's.
func RawReadFile(path []byte, buf []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }
