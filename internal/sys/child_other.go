//go:build !linux

package sys

import (
	"os/exec"
	"syscall"
)

// SetParentDeathSignal does nothing: the parent-death signal is Linux's,
// and so are the helpers that need it.
func SetParentDeathSignal(cmd *exec.Cmd, sig syscall.Signal) {}

// Sethostname reports that kdelta names only a Linux guest.
func Sethostname(name string) error { return ErrNotLinux }
