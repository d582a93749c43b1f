//go:build !linux

package sys

import (
	"errors"
	"unsafe"
)

// ErrNoRawThread says raw threads are Linux's.
var ErrNoRawThread = errors.New("no raw threads: they are Linux's")

// A RawThread is a raw thread of a Linux process.
type RawThread struct{}

// StartRawThread reports that raw threads are Linux's.
func StartRawThread(body func(arg unsafe.Pointer), arg unsafe.Pointer) (*RawThread, error) {
	return nil, ErrNoRawThread
}

// Tid has no thread to name.
func (t *RawThread) Tid() int { return 0 }

// Join has no thread to wait for.
func (t *RawThread) Join() error { return nil }
