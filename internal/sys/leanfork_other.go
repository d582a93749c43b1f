//go:build !linux

package sys

import (
	"syscall"
	"unsafe"
)

// A ForkArena holds lean children's memory on Linux.
type ForkArena struct{}

// NewForkArena reports that the raw fork is Linux's.
func NewForkArena(size int) (*ForkArena, error) { return nil, ErrNotLinux }

// ArenaNew reports that the raw fork is Linux's.
func ArenaNew[T any](a *ForkArena) (*T, error) { return nil, ErrNotLinux }

// ArenaSlice reports that the raw fork is Linux's.
func ArenaSlice[T any](a *ForkArena, n int) ([]T, error) { return nil, ErrNotLinux }

// Lean reports that the raw fork is Linux's.
func (a *ForkArena) Lean() error { return ErrNotLinux }

// Unlean has nothing to undo.
func (a *ForkArena) Unlean() error { return nil }

// Fork reports that the raw fork is Linux's.
func (a *ForkArena) Fork(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal) (pid int, err error) {
	return 0, ErrNotLinux
}

// A LeanStart is a lean child's start, on Linux.
type LeanStart struct{}

// Prepare reports that the raw fork is Linux's.
func (a *ForkArena) Prepare(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal, stack []byte) (*LeanStart, error) {
	return nil, ErrNotLinux
}

// ForkPrepared answers ENOSYS: the raw fork is Linux's.
func ForkPrepared(s *LeanStart) (pid int, e syscall.Errno) { return 0, syscall.ENOSYS }

// Free has nothing to unmap.
func (a *ForkArena) Free() error { return nil }
