package sys

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// Membarrier calls membarrier(2). GLOBAL waits for an RCU grace period,
// so this goes through the runtime's blocking path, not a raw call.
func Membarrier(cmd, flags int) (int, error) {
	r, _, e := unix.Syscall(unix.SYS_MEMBARRIER, uintptr(cmd), uintptr(flags), 0)
	if e != 0 {
		return int(r), e
	}
	return int(r), nil
}

// IsENOSYS tells whether err is ENOSYS.
func IsENOSYS(err error) bool { return errors.Is(err, unix.ENOSYS) }

// IsEPERM tells whether err is EPERM or EACCES.
func IsEPERM(err error) bool { return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) }

// UnshareNet moves the calling thread into a new, anonymous network
// namespace. The caller must hold its goroutine on the thread
// (runtime.LockOSThread) and never unlock it, so the thread dies with the
// namespace instead of returning to the runtime's pool.
func UnshareNet() error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
	}
	return nil
}

// NoFileLimit returns the soft and hard RLIMIT_NOFILE.
func NoFileLimit() (soft, hard uint64, err error) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, err
	}
	return r.Cur, r.Max, nil
}

// RaiseNoFileLimit raises the soft RLIMIT_NOFILE to at least n, up to the
// hard limit (and the hard limit too when privileged). It returns the new
// soft limit.
func RaiseNoFileLimit(n uint64) (uint64, error) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur >= n {
		return r.Cur, nil
	}
	want := r
	want.Cur = n
	if want.Max < n {
		want.Max = n
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		// Unprivileged: go as far as the hard limit allows.
		want = r
		want.Cur = r.Max
		if err2 := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err2 != nil {
			return r.Cur, fmt.Errorf("raise RLIMIT_NOFILE to %d: %w", n, err)
		}
		if want.Cur < n {
			return want.Cur, fmt.Errorf("raise RLIMIT_NOFILE to %d: hard limit is %d", n, r.Max)
		}
	}
	return want.Cur, nil
}

// KillGroup sends SIGKILL to every process in process group pgid.
func KillGroup(pgid int) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to kill process group %d", pgid)
	}
	return unix.Kill(-pgid, unix.SIGKILL)
}

// Signal sends sig to pid through the blocking path (for control, not
// measurement).
func Signal(pid int, sig syscall.Signal) error { return unix.Kill(pid, sig) }
