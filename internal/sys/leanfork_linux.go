package sys

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A ForkArena is the whole memory of children forked lean (Fork after
// Lean): one private anonymous mapping of kdelta's own, holding their
// stack at its top and, below it, every byte their bodies read or write
// that is not shared (ArenaNew, ArenaSlice). While the arena is lean,
// every other private anonymous mapping of the process (the Go heap,
// goroutine stacks, the runtime's own memory) is marked MADV_DONTFORK,
// so a child forked then gets none of it: its memory is its code, the
// arena, shared mappings and the kernel's, about what a C program's
// fork() child has.
//
// Why: a child that shares megabytes of copy-on-write pages with its
// parent is measured as a different task. On a two-vCPU guest
// hackbench's workers migrated a fifth more often once its parent had
// 4 MiB of touched anonymous memory before forking (LD_PRELOAD,
// 1,000 loops, five rounds), and a worker forked from the Go runtime
// carries 3.4 MiB of it.
type ForkArena struct {
	mem   []byte
	used  int // bytes handed out from the start
	start *LeanStart
	// lean lists the ranges marked MADV_DONTFORK, to be marked
	// MADV_DOFORK again by Unlean.
	lean [][2]uintptr
	// tp is the thread pointer of the thread Lean ran on.
	tp uintptr
}

// tcbSpan is how far on either side of the forking thread's thread
// pointer Lean leaves memory to the child: the C library's thread control
// block is there, and with glibc the rseq area, which the kernel writes
// on the child's every return to user space (rseq registrations survive
// fork) and kills the child with SIGSEGV if it cannot.
const tcbSpan = 128 << 10

// A LeanStart is a lean child's start: its body, the body's argument,
// the signal its end sends its parent, its stack, the thread pointer of
// the thread Lean ran on (or 0), which the forking thread must have, and
// the pid of the process that forked it, set at the fork.
type LeanStart struct {
	body       func(unsafe.Pointer) int
	arg        unsafe.Pointer
	exitSignal uintptr
	sp, tp     uintptr
	ppid       uintptr
}

// NewForkArena maps an arena with size bytes for ArenaNew and ArenaSlice
// above a child's stack.
func NewForkArena(size int) (*ForkArena, error) {
	// Whole pages (64 KiB on many ppc64le kernels): Lean advises the
	// memory around the arena, from its ends.
	page := os.Getpagesize()
	size = (size + page - 1) &^ (page - 1)
	mem, err := unix.Mmap(-1, 0, size+rawThreadStack, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("fork arena: mmap %d bytes: %w", size+rawThreadStack, err)
	}
	a := &ForkArena{mem: mem}
	if a.start, err = ArenaNew[LeanStart](a); err != nil {
		_ = unix.Munmap(mem)
		return nil, err
	}
	return a, nil
}

// alloc hands out n zeroed bytes aligned to align.
func (a *ForkArena) alloc(n, align uintptr) (unsafe.Pointer, error) {
	off := (uintptr(a.used) + align - 1) &^ (align - 1)
	if a.mem == nil || off+n > uintptr(len(a.mem)-rawThreadStack) {
		return nil, fmt.Errorf("fork arena: %d bytes wanted, %d left", n, len(a.mem)-rawThreadStack-a.used)
	}
	a.used = int(off + n)
	return unsafe.Pointer(&a.mem[off]), nil
}

// ArenaNew returns a zeroed T in the arena. T's pointers, and the
// slices' arrays, may only lead into the arena or into shared memory
// (SharedInt64s): a lean child has nothing else, and the garbage
// collector does not see pointers kept in the arena.
func ArenaNew[T any](a *ForkArena) (*T, error) {
	var zero T
	p, err := a.alloc(unsafe.Sizeof(zero), unsafe.Alignof(zero))
	return (*T)(p), err
}

// ArenaSlice returns n zeroed Ts in the arena, under ArenaNew's rule.
func ArenaSlice[T any](a *ForkArena, n int) ([]T, error) {
	var zero T
	if n <= 0 {
		return nil, nil
	}
	p, err := a.alloc(uintptr(n)*unsafe.Sizeof(zero), unsafe.Alignof(zero))
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(p), n), nil
}

// Lean marks every private, writable, anonymous mapping of the process
// but the arena and the calling thread's control block MADV_DONTFORK,
// until Unlean. Only forks see the mark: the process runs on as before,
// and exec's vfork shares its memory. The caller must be locked to its
// thread (runtime.LockOSThread) and Fork from it.
func (a *ForkArena) Lean() error {
	// Under the race detector a child's sync/atomic calls go through
	// its shadow memory, which a lean child would not have (context
	// switch's tasks died before the start): such forks copy it all.
	if a.lean != nil || !rawCloneAsm || raceEnabled {
		return nil
	}
	ranges, err := anonPrivateRanges()
	if err != nil {
		return err
	}
	a.tp = threadPointer()
	keep := [][2]uintptr{{uintptr(unsafe.Pointer(&a.mem[0])), uintptr(unsafe.Pointer(&a.mem[0])) + uintptr(len(a.mem))}}
	if a.tp != 0 {
		page := uintptr(os.Getpagesize())
		keep = append(keep, [2]uintptr{(max(a.tp, tcbSpan) - tcbSpan) &^ (page - 1), (a.tp + tcbSpan + page - 1) &^ (page - 1)})
	}
	a.lean = [][2]uintptr{}
	for _, r := range ranges {
		for _, p := range subtract(r, keep) {
			if err := madvise(p, unix.MADV_DONTFORK); err != nil {
				_ = a.Unlean()
				return fmt.Errorf("fork arena: %w", err)
			}
			a.lean = append(a.lean, p)
		}
	}
	return nil
}

// subtract returns the parts of r outside every range of keep.
func subtract(r [2]uintptr, keep [][2]uintptr) [][2]uintptr {
	parts := [][2]uintptr{r}
	for _, k := range keep {
		var next [][2]uintptr
		for _, p := range parts {
			for _, q := range [][2]uintptr{{p[0], min(p[1], k[0])}, {max(p[0], k[1]), p[1]}} {
				if q[0] < q[1] {
					next = append(next, q)
				}
			}
		}
		parts = next
	}
	return parts
}

// Unlean lets forks copy the process's memory again.
func (a *ForkArena) Unlean() error {
	var first error
	for _, p := range a.lean {
		// The runtime may have unmapped part of a range since (ENOMEM).
		if err := madvise(p, unix.MADV_DOFORK); err != nil && first == nil && !errors.Is(err, unix.ENOMEM) {
			first = fmt.Errorf("fork arena: %w", err)
		}
	}
	a.lean = nil
	return first
}

// Fork forks a child that runs body(arg) on the arena's stack and exits
// with its result, as ForkRaw's does, under ForkRaw's rules for body and
// two more: body must be a top-level function, and arg must be in the
// arena (ArenaNew). The child starts with every signal blocked, so
// nothing but SIGKILL and SIGSTOP reaches it (a lean child has no
// memory for the runtime's signal handlers to run on), and it dies with
// its parent (PR_SET_PDEATHSIG). Where the architecture has no clone
// trampoline it is ForkRaw, on the caller's stack; Lean then marks
// nothing.
func (a *ForkArena) Fork(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal) (pid int, err error) {
	*a.start = a.startOf(body, arg, exitSignal, nil)
	err = withSignalsBlocked(func() error {
		r, e := ForkPrepared(a.start)
		if e == unix.EXDEV {
			return fmt.Errorf("fork arena: Fork on another thread than Lean's (lock the goroutine to its thread)")
		}
		if e != 0 {
			return fmt.Errorf("fork: %w", e)
		}
		pid = r
		return nil
	})
	return pid, err
}

// Prepare readies, in the arena, the start of a child that ForkPrepared
// forks later, on any thread and in any lean child of this arena: body(arg)
// under Fork's rules, on the arena's stack or, given one, on stack (an
// ArenaSlice), which a child that forks children of its own needs: they
// start on the arena's.
func (a *ForkArena) Prepare(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal, stack []byte) (*LeanStart, error) {
	s, err := ArenaNew[LeanStart](a)
	if err != nil {
		return nil, err
	}
	*s = a.startOf(body, arg, exitSignal, stack)
	return s, nil
}

// startOf is the start of a child running body(arg) on stack, or on the
// arena's own stack.
func (a *ForkArena) startOf(body func(arg unsafe.Pointer) int, arg unsafe.Pointer, exitSignal syscall.Signal, stack []byte) LeanStart {
	if stack == nil {
		stack = a.mem
	}
	// The stack starts with room for the first frame (see StartRawThread).
	s := LeanStart{body: body, arg: arg, exitSignal: uintptr(exitSignal), sp: uintptr(unsafe.Pointer(&stack[len(stack)-16-128]))}
	if a.lean != nil {
		s.tp = a.tp
	}
	return s
}

// ForkPrepared forks the child s describes (ForkArena.Prepare), as Fork
// does, and returns its pid or the errno: EXDEV on another thread than
// Lean's. It is nosplit code making raw calls, for a raw thread
// (StartRawThread) started by the thread that ran Lean, which keeps that
// thread's thread pointer and has every signal blocked, as the child must
// start; or for a lean child forking children of its own. A child forked
// by a raw thread gets its death signal when that thread exits, not the
// process. Elsewhere the caller blocks the signals (Fork does). Where the
// architecture has no clone trampoline the child is forked on the
// caller's stack (ForkRaw).
//
//go:nosplit
//go:norace
func ForkPrepared(s *LeanStart) (pid int, e unix.Errno) {
	r, _ := rawsys6(unix.SYS_GETPID, 0, 0, 0, 0, 0, 0)
	s.ppid = r
	if !rawCloneAsm {
		r, e := forkRaw(s.body, s.arg, s.ppid, s.exitSignal)
		return int(r), e
	}
	if s.tp != 0 && threadPointer() != s.tp {
		return 0, unix.EXDEV
	}
	r, errno := rawClone(s.exitSignal, s.sp, nil, leanChild, unsafe.Pointer(s))
	return int(r), unix.Errno(errno)
}

// leanChild is a lean child's life: the death signal, body and exit.
//
//go:nosplit
//go:norace
func leanChild(p unsafe.Pointer) {
	s := (*LeanStart)(p)
	rawsys6(unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0, 0)
	code := 1
	// The parent may have died before the prctl.
	if ppid, _ := rawsys6(unix.SYS_GETPPID, 0, 0, 0, 0, 0, 0); ppid == s.ppid {
		code = s.body(s.arg)
	}
	for {
		rawsys6(unix.SYS_EXIT_GROUP, uintptr(code), 0, 0, 0, 0, 0)
	}
}

// Free unmarks the process's memory (Unlean) and unmaps the arena. The
// children keep their copies.
func (a *ForkArena) Free() error {
	err := a.Unlean()
	if a.mem != nil {
		if e := unix.Munmap(a.mem); err == nil && e != nil {
			err = fmt.Errorf("fork arena: munmap: %w", e)
		}
		a.mem, a.start = nil, nil
	}
	return err
}

// withSignalsBlocked runs f on this goroutine's thread, locked to it, with
// every signal blocked: a task cloned in f starts with them all blocked.
func withSignalsBlocked(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, old unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^all.Val[i]
	}
	if err := unix.PthreadSigmask(unix.SIG_SETMASK, &all, &old); err != nil {
		return fmt.Errorf("block signals: %w", err)
	}
	defer func() { _ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil) }()
	return f()
}

// madvise gives advice on the addresses [p[0], p[1]).
func madvise(p [2]uintptr, advice int) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, p[0], p[1]-p[0], uintptr(advice)); e != 0 {
		return fmt.Errorf("madvise %#x-%#x %d: %w", p[0], p[1], advice, e)
	}
	return nil
}

// anonPrivateRanges reads the process's private, writable, anonymous
// mappings from /proc/self/maps: those with no name (the kernel's named
// ones, [stack], [vdso] and the like, are left alone).
func anonPrivateRanges() ([][2]uintptr, error) {
	const maps = "/proc/self/maps"
	b, err := os.ReadFile(maps)
	if err != nil {
		return nil, err
	}
	var out [][2]uintptr
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 5 {
			return nil, fmt.Errorf("%s:%d: %q: want address, perms, offset, device and inode", maps, n, sc.Text())
		}
		if len(f) > 5 || len(f[1]) != 4 || f[1][1] != 'w' || f[1][3] != 'p' {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		s, err1 := strconv.ParseUint(string(lo), 16, 64)
		e, err2 := strconv.ParseUint(string(hi), 16, 64)
		if !ok || err1 != nil || err2 != nil || e <= s {
			return nil, fmt.Errorf("%s:%d: bad address range %q", maps, n, f[0])
		}
		out = append(out, [2]uintptr{uintptr(s), uintptr(e)})
	}
	return out, sc.Err()
}
