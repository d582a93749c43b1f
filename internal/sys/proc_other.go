//go:build !linux

package sys

import (
	"errors"
	"syscall"
)

// Membarrier reports that membarrier(2) is Linux's.
func Membarrier(cmd, flags int) (int, error) { return -1, ErrNotLinux }

// IsENOSYS tells whether err is ENOSYS.
func IsENOSYS(err error) bool { return errors.Is(err, syscall.ENOSYS) }

// IsEPERM tells whether err is EPERM or EACCES.
func IsEPERM(err error) bool { return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) }

// UnshareNet reports that network namespaces are Linux's.
func UnshareNet() error { return ErrNotLinux }

// NoFileLimit reports that kdelta reads RLIMIT_NOFILE only on Linux.
func NoFileLimit() (soft, hard uint64, err error) { return 0, 0, ErrNotLinux }

// RaiseNoFileLimit reports that kdelta raises RLIMIT_NOFILE only on Linux.
func RaiseNoFileLimit(n uint64) (uint64, error) { return 0, ErrNotLinux }

// KillGroup reports that kdelta's process groups are Linux's.
func KillGroup(pgid int) error { return ErrNotLinux }

// Signal reports that kdelta signals its children only on Linux.
func Signal(pid int, sig syscall.Signal) error { return ErrNotLinux }
