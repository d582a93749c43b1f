package sys

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrNoRawThread says this architecture has no clone trampoline
// (thread_linux_*.s): StartRawThread's callers fall back to a goroutine
// locked to its thread.
var ErrNoRawThread = errors.New("no raw threads on " + runtime.GOARCH)

// A RawThread is a thread of this process that the Go runtime does not
// know of: cloned as pthread_create clones, on a stack of its own, with
// every signal blocked, running one nosplit function and exiting. See
// StartRawThread.
type RawThread struct {
	id    int
	stack []byte
	// tid is the word at the top of the stack mapping where the kernel
	// stores the thread's id at clone (CLONE_PARENT_SETTID) and clears it,
	// with a futex wake-up, when the thread has exited
	// (CLONE_CHILD_CLEARTID), as glibc's pthread_join waits on it. It lies
	// in the thread's own mapping, not in the Go heap, so the kernel's
	// write at exit cannot land in memory the collector has reused.
	tid *int32
}

// rawThreadStack is a raw thread's stack: ample for a nosplit body, whose
// frames the linker bounds at under a kilobyte.
const rawThreadStack = 64 << 10

// The flags glibc's pthread_create clones with, less CLONE_SETTLS (the
// thread keeps its creator's thread pointer, which nosplit code does not
// read), plus the two that let Join wait for the thread's exit.
const rawThreadFlags = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND |
	unix.CLONE_THREAD | unix.CLONE_SYSVSEM | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID

// StartRawThread starts body(arg) on a new thread of this process, as a
// C program starts a worker with pthread_create, and returns it for
// Join. The thread is no Go runtime thread (no M, no P, no g of its own):
// the scheduler never runs, preempts or wakes anything on it, sysmon does
// not watch it, and nothing of the runtime runs beside it because of it,
// so a workload whose workers are raw threads has, in its window, the
// tasks of the C reference and no other.
//
// The rules for body are ForkRaw's, and stricter, since the thread
// shares the Go heap with the running program: a //go:nosplit
// //go:norace function that calls only nosplit, norace code making raw
// system calls; no allocation, no stack growth, no panics, no pointer
// stores (the write barrier would run on its creator's g); it reports
// through the memory arg points to, which must stay reachable until Join
// returns. Every signal is blocked on the thread, so a signal sent to the
// process is taken by a runtime thread, and a fault in body kills the
// process. Where the architecture has no trampoline it returns
// ErrNoRawThread.
func StartRawThread(body func(arg unsafe.Pointer), arg unsafe.Pointer) (*RawThread, error) {
	stack, err := unix.Mmap(-1, 0, rawThreadStack, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_STACK)
	if err != nil {
		return nil, fmt.Errorf("raw thread stack: mmap: %w", err)
	}
	t := &RawThread{stack: stack, tid: (*int32)(unsafe.Pointer(&stack[len(stack)-16]))}
	// The stack starts below the tid word with 128 bytes above it for the
	// first frame's fixed area and spilled arguments (ppc64's is 32, the
	// others' less), 16-byte aligned as arm64 needs (mmap's pages are).
	sp := uintptr(unsafe.Pointer(&stack[len(stack)-16-128]))

	// The new thread inherits the mask of the thread that clones it.
	var r, e uintptr
	if err := withSignalsBlocked(func() error {
		r, e = rawClone(rawThreadFlags, sp, t.tid, body, arg)
		return nil
	}); err != nil {
		_ = unix.Munmap(stack)
		return nil, fmt.Errorf("raw thread: %w", err)
	}
	if e != 0 {
		_ = unix.Munmap(stack)
		if e == uintptr(unix.ENOSYS) && !rawCloneAsm {
			return nil, ErrNoRawThread
		}
		return nil, fmt.Errorf("clone thread: %w", unix.Errno(e))
	}
	t.id = int(r)
	return t, nil
}

// Tid is the thread's id, its entry in /proc/self/task.
func (t *RawThread) Tid() int { return t.id }

// Join waits until the thread has exited and unmaps its stack. It waits
// in an ordinary (not raw) futex call, so the Go scheduler takes this
// thread's P back while it sleeps: with nothing else to run, sysmon then
// sleeps too and looks in on no one during the window.
func (t *RawThread) Join() error {
	if t.stack == nil {
		return nil
	}
	for {
		v := atomic.LoadInt32(t.tid)
		if v == 0 {
			break
		}
		_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(t.tid)), futexWait, uintptr(v), 0, 0, 0)
		if e != 0 && e != unix.EAGAIN && e != unix.EINTR {
			return fmt.Errorf("join thread %d: futex: %w", t.id, e)
		}
	}
	err := unix.Munmap(t.stack)
	t.stack = nil
	if err != nil {
		return fmt.Errorf("join thread %d: munmap: %w", t.id, err)
	}
	return nil
}
