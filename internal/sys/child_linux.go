package sys

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// SetParentDeathSignal makes the kernel send sig to cmd's process when
// the thread that starts it exits (PR_SET_PDEATHSIG), so a helper such as
// perf record stops with a kdelta that is killed outright. The rest of
// cmd.SysProcAttr is kept.
func SetParentDeathSignal(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
}

// Sethostname sets the hostname of the caller's UTS namespace: a guest's
// /init names its machine so its fingerprint is told from the host's.
func Sethostname(name string) error { return unix.Sethostname([]byte(name)) }
