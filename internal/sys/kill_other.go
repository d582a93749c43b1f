//go:build !linux

package sys

import (
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"
)

// IgnoreSignal sets sig's disposition to ignored, through os/signal.
func IgnoreSignal(sig syscall.Signal) { signal.Ignore(sig) }

// RestoreSignal undoes IgnoreSignal: sig goes back to the Go runtime's
// handler, which catches it and, for a signal nobody asked to be told of,
// does nothing. signal.Reset alone leaves an ignored signal ignored (it
// puts back only handlers that Notify installed); a Notify puts the
// runtime's handler back, and the Reset that follows keeps it.
func RestoreSignal(sig syscall.Signal) {
	signal.Notify(make(chan os.Signal, 1), sig)
	signal.Reset(sig)
}

// SignalIgnored reports that the kernel's signal masks are read from
// Linux's /proc.
func SignalIgnored(sig syscall.Signal) (bool, error) { return false, ErrNotLinux }

// RawSleep sleeps for d through the Go runtime: the raw sleep is Linux's.
func RawSleep(d time.Duration) { time.Sleep(d) }

// ForkRaw reports that the raw fork is Linux's.
func ForkRaw(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal) (pid int, err error) {
	return 0, ErrNotLinux
}

// ForkPauser reports that the raw fork is Linux's.
func ForkPauser() (pid int, err error) { return 0, ErrNotLinux }

// WaitChild reports that kdelta's children are Linux's.
func WaitChild(pid int) error { return ErrNotLinux }

// ExitError reports that kdelta's children are Linux's.
func ExitError(pid int, status uint32) error { return ErrNotLinux }

// WaitGone reports that kdelta's children are Linux's.
func WaitGone(pid int) error { return ErrNotLinux }
