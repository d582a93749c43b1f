package sys

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// IgnoreSignal sets sig's disposition to SIG_IGN for the whole process, as
// signal(sig, SIG_IGN) does in C, so the kernel drops sig when it is sent
// instead of delivering it. It goes through os/signal, which tells the Go
// runtime and then calls rt_sigaction(SIG_IGN) for the signals the runtime
// merely catches, such as SIGUSR1 and SIGUSR2. The disposition is inherited
// across exec by helper processes started afterwards.
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

// SignalIgnored tells whether the kernel holds sig at SIG_IGN for the
// calling process, from the SigIgn mask of /proc/self/status. A workload
// checks it because a signal Go only pretends to ignore would still be
// delivered, at a different cost.
func SignalIgnored(sig syscall.Signal) (bool, error) {
	return signalMasked("/proc/self/status", "SigIgn:", sig)
}

// signalMasked reads the hexadecimal signal mask on line key of a
// /proc/PID/status file and tells whether sig is in it.
func signalMasked(path, key string, sig syscall.Signal) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key)
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(rest), 16, 64)
		if err != nil {
			return false, fmt.Errorf("%s: bad %s line %q: %w", path, key, sc.Text(), err)
		}
		return sig >= 1 && sig <= 64 && mask&(1<<(uint(sig)-1)) != 0, nil
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return false, fmt.Errorf("%s: no %s line", path, key)
}

// RawSleep sleeps for d with a raw clock_nanosleep(CLOCK_REALTIME), the
// call glibc's usleep and nanosleep make, resuming after a signal handler
// with the time that was left. Unlike time.Sleep it does not park the
// goroutine and wake it through the runtime's timers, which would add
// futex calls and thread hand-offs. It blocks in a raw call: see the
// package comment.
func RawSleep(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for {
		var rem unix.Timespec
		_, _, e := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_REALTIME, 0,
			uintptr(unsafe.Pointer(&ts)), uintptr(unsafe.Pointer(&rem)), 0, 0)
		if e != unix.EINTR {
			return
		}
		ts = rem
	}
}

// ForkRaw forks the calling process without exec, as C programs fork
// their workers, and returns the child's pid. The child is a copy of the
// calling thread alone, with a copy of the Go runtime's memory but none
// of its other threads; it sets PR_SET_PDEATHSIG to SIGKILL (so it dies
// when the thread that forked it exits), runs body(arg) and exits with
// body's result. exitSignal is the signal the parent gets when the child
// ends (SIGCHLD as fork() sends, or 0 for none; reap the child with
// WaitChild either way).
//
// body must be a //go:nosplit //go:norace function that calls nothing but
// nosplit code making raw system calls (the Raw* functions marked so
// here): no allocation, no stack growth, no scheduling, no panics, the
// same rules the Go runtime's own fork-and-exec child keeps until its
// exec. A signal handler in the child is the Go runtime's; it returns at
// once for a signal it does not use (SIGUSR1, SIGPIPE, ...).
//
// Re-executing the binary would give the child a Go runtime of its own:
// a few hundred system calls and a dozen context switches to start, a
// sysmon thread that wakes every 10 ms, and several threads that a
// SIGSTOP stops and a signal may be handed to. A forked child has none of
// that, so the kernel sees what it sees under the C reference.
func ForkRaw(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal) (pid int, err error) {
	r, e := forkRaw(body, arg, uintptr(unix.Getpid()), uintptr(exitSignal))
	if e != 0 {
		return 0, fmt.Errorf("fork: %w", e)
	}
	return int(r), nil
}

//go:nosplit
//go:norace
func forkRaw(body func(unsafe.Pointer) int, arg unsafe.Pointer, ppid, exitSignal uintptr) (uintptr, unix.Errno) {
	// clone(exitSignal, 0, ...) is fork(); s390x takes the stack first.
	a1, a2 := exitSignal, uintptr(0)
	if runtime.GOARCH == "s390x" {
		a1, a2 = a2, a1
	}
	r, _, e := unix.RawSyscall6(unix.SYS_CLONE, a1, a2, 0, 0, 0, 0)
	if e != 0 || r != 0 {
		return r, e
	}
	code := 1
	unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0, 0)
	// The parent may have died before the prctl.
	if p, _, _ := unix.RawSyscall6(unix.SYS_GETPPID, 0, 0, 0, 0, 0, 0); p == ppid {
		code = body(arg)
	}
	for {
		unix.RawSyscall6(unix.SYS_EXIT_GROUP, uintptr(code), 0, 0, 0, 0, 0)
	}
}

// ForkPauser forks (ForkRaw) the helper child of stress-ng's kill
// stressor: it loops on kill(ppid, 0) and pause() until its parent is
// gone or kills it. It is single-threaded, as the C child is: SIGSTOP
// stops one thread, and a SIGUSR1 cannot be taken by some other thread
// while the pausing one sleeps on. Its SIGUSR1 handler is the one it
// inherits, the Go runtime's, a no-op for a signal no os/signal.Notify
// asked for, as stress-ng's handler is; the caller must not ignore
// SIGUSR1 when it forks. The child ends with SIGCHLD, as fork()'s does.
func ForkPauser() (pid int, err error) {
	ppid := unix.Getpid()
	return ForkRaw(pauser, unsafe.Pointer(&ppid), unix.SIGCHLD)
}

//go:nosplit
//go:norace
func pauser(arg unsafe.Pointer) int {
	ppid := uintptr(*(*int)(arg))
	for {
		if _, _, e := unix.RawSyscall6(unix.SYS_KILL, ppid, 0, 0, 0, 0, 0); e != 0 {
			return 0
		}
		// pause(): ppoll with no descriptors, no timeout and no mask
		// returns only after a signal handler ran. arm64 has no pause
		// system call; glibc builds pause from ppoll there.
		unix.RawSyscall6(unix.SYS_PPOLL, 0, 0, 0, 0, 0, 0)
	}
}

// WaitChild reaps child pid, whatever signal it ends with (__WALL), and
// returns an error unless it exited with status 0.
func WaitChild(pid int) error {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("wait4 %d: %w", pid, err)
		}
		return ExitError(pid, uint32(ws))
	}
}

// ExitError says how child pid ended from its wait status: nil for an
// exit with status 0, else an error naming its status or signal.
func ExitError(pid int, status uint32) error {
	ws := unix.WaitStatus(status)
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		return nil
	case ws.Exited():
		return fmt.Errorf("process %d exited with status %d", pid, ws.ExitStatus())
	case ws.Signaled():
		return fmt.Errorf("process %d killed by %v", pid, ws.Signal())
	default:
		return fmt.Errorf("process %d: wait status %#x", pid, status)
	}
}

// WaitGone waits until child pid has terminated and reaps it. It also
// works when SIGCHLD is ignored, where the kernel reaps children itself
// and wait4 reports ECHILD once the last one is gone.
func WaitGone(pid int) error {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, 0, nil)
		switch {
		case err == nil, errors.Is(err, unix.ECHILD):
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		default:
			return fmt.Errorf("wait4 %d: %w", pid, err)
		}
	}
}
