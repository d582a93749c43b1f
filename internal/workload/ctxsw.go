package workload

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// contextSwitch is the powerpc selftest context_switch
// (tools/testing/selftests/powerpc/benchmarks/context_switch.c, the
// version with --timeout and the --no-* flags): two tasks pinned to one
// CPU hand control to each other by sched_yield, over two pipes or
// through two futex mutexes, and the count of switches is printed once a
// second. Task 1 adds 2 to the count per loop, as the selftest's thread 1
// adds 2 to iterations, so the count is of handoffs: one context switch
// each when both tasks share a CPU and nothing else runs between them
// (SCHED_FIFO: kdelta run --fifo, as the seed mail's chrt -f 98).
//
// Runtime path. Thread mode runs the tasks on two locked OS threads,
// process mode forks them without exec (sys.ForkArena), as the selftest
// forks. From the start gate to their last handoff the tasks run only
// nosplit code making raw system calls, and so does the main thread that
// takes the count once a second (the selftest's SIGALRM handler): no
// allocation, no stack check where the Go scheduler could preempt, no
// runtime call that would wake another thread. What the kernel sees in
// the window is the tasks' calls, the once-a-second wake-up of the
// sampler and, in thread mode, the Go runtime's sysmon thread (a few
// hundred short wake-ups a second at most).
//
// The floating-point touch is the selftest's fp += 0.1 through a
// function that is not inlined, after every read, write and yield of the
// pipe and yield tests; the futex test never touches, as in the selftest.
// Its altivec and VSX vector touches need per-architecture assembly: they
// are off, and the run says so, as the selftest's --no-altivec
// --no-vector. The futex test's mutexes live in the process's memory in
// thread mode (FUTEX_PRIVATE_FLAG) and, in process mode, in a shared
// anonymous mapping (MAP_SHARED|MAP_ANONYMOUS) instead of the selftest's
// SysV shm page: both are shared memory that a fork keeps shared, and the
// futex calls on them are the same (no private flag).
type contextSwitch struct{}

func init() { Register(contextSwitch{}) }

func (contextSwitch) Name() string { return "context_switch" }

func (contextSwitch) Doc() string {
	return "two tasks on one CPU switching by sched_yield, a pipe or a futex, as the powerpc context_switch selftest"
}

func (contextSwitch) Params() []Param {
	return []Param{
		{Name: "test", Default: "yield", Choices: []string{"yield", "pipe", "futex"},
			Doc: "how the tasks hand over: sched_yield, a one-byte token over two pipes, or two futex mutexes (the selftest's --test)"},
		{Name: "mode", Default: "thread", Choices: []string{"thread", "process"},
			Doc: "two threads (the selftest's default) or two processes (--process)"},
		{Name: "cpus", Default: "auto",
			Doc: "auto: both tasks on the CPU the selftest's pick_online_cpu() picks (8, 16, ... if allowed, else the highest allowed); A,B, quoted in a spec (cpus='0,1'): task 1 on A, task 2 on B (yield needs A = B); A: both on A"},
		{Name: "timeout", Kind: Int, Default: "5", Min: 1,
			Doc: "seconds of switching, a count taken each second (the selftest's --timeout, default 30 there)"},
		{Name: "switches", Kind: Int, Default: "0", Min: 0,
			Doc: "stop after this many switches instead of after timeout seconds (0: use timeout)"},
		{Name: "fp", Kind: Bool, Default: "true",
			Doc: "touch a float64 after every read, write and yield of the pipe and yield tests (false: the selftest's --no-fp)"},
		{Name: "cancel", Default: "auto", Choices: []string{"auto", "toggle", "none"},
			Doc: "pipe test: toggle: each read and write costs what glibc before 2.41 adds in a multi-threaded program (two atomic swaps of a per-thread word), as the selftest's threads pay it; none: the bare calls; auto: toggle in thread mode when the installed glibc is older than 2.41, else none"},
	}
}

func (contextSwitch) Metrics() []result.Metric {
	return []result.Metric{
		{Name: "switches/s", Unit: "switches/s", Better: result.Higher, Doc: "handoffs per second over the timed window, the selftest's per-second figure"},
		{Name: "ns/switch", Unit: "ns", Better: result.Lower, Doc: "nanoseconds per handoff"},
	}
}

func (contextSwitch) Validate(v Values) error {
	c, err := parseCtxswCPUs(v.String("cpus"))
	if err != nil {
		return err
	}
	if v.String("test") == "yield" && !c.auto && c.cpu[0] != c.cpu[1] {
		return fmt.Errorf("parameter cpus: test=yield needs both tasks on one CPU, got %d,%d (as the selftest's yield_setup)", c.cpu[0], c.cpu[1])
	}
	return nil
}

// ResolveAuto sets cancel=auto to what the glibc installed here does
// around the selftest's reads and writes in this mode (sys.CancelWord).
func (contextSwitch) ResolveAuto(v Values) {
	if v["cancel"] == "auto" {
		v["cancel"] = cancelFor(v["mode"] == "thread", ToolVersion("glibc"))
	}
}

// WarmupValues caps a warm-up at one second or 200,000 switches.
func (contextSwitch) WarmupValues(v Values) Values {
	return capInt(capInt(v, "timeout", 1), "switches", 200000)
}

// ctxswCPUs is the placement of the two tasks.
type ctxswCPUs struct {
	auto bool
	cpu  [2]int
}

func parseCtxswCPUs(s string) (ctxswCPUs, error) {
	if s == "auto" {
		return ctxswCPUs{auto: true}, nil
	}
	a, b, two := strings.Cut(s, ",")
	if !two {
		b = a
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || x < 0 || y < 0 {
		return ctxswCPUs{}, fmt.Errorf("parameter cpus: bad value %q (auto, A or A,B)", s)
	}
	return ctxswCPUs{cpu: [2]int{x, y}}, nil
}

// pickOnlineCPU is the selftest's pick_online_cpu() (powerpc utils.c):
// the first of CPUs 8, 16, 24, ... in the allowed set, the primary SMT
// threads of a POWER machine (CPU 0 skipped, as it takes the interrupts),
// else the highest allowed CPU. allowed is sorted.
func pickOnlineCPU(allowed []int) int {
	if len(allowed) == 0 {
		return -1
	}
	highest := allowed[len(allowed)-1]
	for c := 8; c <= highest; c += 8 {
		for _, a := range allowed {
			if a == c {
				return c
			}
		}
	}
	return highest
}

// The tests, as ctxswTask.test.
const (
	ctxswYield = iota
	ctxswPipe
	ctxswFutex
)

var ctxswTests = map[string]int{"yield": ctxswYield, "pipe": ctxswPipe, "futex": ctxswFutex}

// A task's exit codes (forked tasks exit with them).
const (
	ctxswOK = iota
	ctxswErrRead
	ctxswErrEOF
	ctxswErrWrite
	ctxswErrFutex
	ctxswErrSetup
)

var ctxswErrText = [...]string{"", "read", "read: end of file", "write", "futex", "setup"}

// ctxswShared is what the two tasks and the sampler share: memory of the
// process in thread mode, a shared mapping in process mode.
type ctxswShared struct {
	// iterations is the selftest's counter: task 1 adds 2 per loop.
	iterations int64
	// end is CLOCK_MONOTONIC when task 1 finished, in ns.
	end int64
	// stop is set by the sampler when the time is up; last by task 1
	// before its last handoff, after which task 2 ends too.
	stop, last uint32
	// gate opens the start; ready and done count the tasks at the gate
	// and finished (futex words, all three).
	gate, ready, done uint32
	// failed is the first failing task's exit code, errno its errno.
	failed, errno uint32
	// m1 and m2 are the futex test's three-state mutexes.
	m1, m2 uint32
}

// ctxswTask is one task's orders; a forked task reads its own copy.
type ctxswTask struct {
	sh       *ctxswShared
	test     int
	private  bool // FUTEX_PRIVATE_FLAG: the tasks are threads
	fp       bool
	rfd, wfd int
	limit    int64 // switches at which task 1 stops
	touch    float64
	// cancel is glibc's bracket around each read and write (cancel=).
	cancel sys.CancelWord
	// The touch and the cancel word are written on every handoff: the
	// other task's, on another CPU where cpus= says so, must not share
	// their cache line.
	_ [128]byte
}

// ctxswRead is a task's read of the token, inside glibc's bracket.
//
//go:nosplit
//go:norace
func ctxswRead(a *ctxswTask, tok *byte) (eof bool, e syscall.Errno) {
	c := a.cancel.Enter()
	eof, e = sys.RawReadToken(a.rfd, tok)
	a.cancel.Leave(c)
	return eof, e
}

// ctxswWrite is a task's write of the token, inside glibc's bracket.
//
//go:nosplit
//go:norace
func ctxswWrite(a *ctxswTask, tok *byte) syscall.Errno {
	c := a.cancel.Enter()
	e := sys.RawWriteToken(a.wfd, tok)
	a.cancel.Leave(c)
	return e
}

// ctxswTouch is the selftest's floating-point touch, fp += 0.1, kept out
// of line so the compiler cannot drop it.
//
//go:nosplit
//go:noinline
func ctxswTouch(x *float64) { *x += 0.1 }

// ctxswArrive tells the sampler the task is at the gate and waits for it
// to open.
//
//go:nosplit
//go:norace
func ctxswArrive(a *ctxswTask) {
	a.touch = 0 // a forked task's copy-on-write fault, here rather than in the window
	atomic.AddUint32(&a.sh.ready, 1)
	sys.RawFutexWake(&a.sh.ready, 1, a.private)
	for atomic.LoadUint32(&a.sh.gate) == 0 {
		sys.RawFutexWait(&a.sh.gate, 0, a.private)
	}
}

// ctxswLeave records a task's end, with its failure if any, and wakes the
// sampler.
//
//go:nosplit
//go:norace
func ctxswLeave(a *ctxswTask, code int, e syscall.Errno) int {
	if code != ctxswOK && atomic.CompareAndSwapUint32(&a.sh.failed, 0, uint32(code)) {
		atomic.StoreUint32(&a.sh.errno, uint32(e))
	}
	atomic.AddUint32(&a.sh.done, 1)
	sys.RawFutexWake(&a.sh.done, 1, a.private)
	return code
}

// ctxswTask1 is the selftest's thread 1: it counts.
//
//go:nosplit
//go:norace
func ctxswTask1(p unsafe.Pointer) int {
	a := (*ctxswTask)(p)
	sh := a.sh
	ctxswArrive(a)
	var n int64
	var tok byte
	code, e := ctxswOK, syscall.Errno(0)
	switch a.test {
	case ctxswYield:
		for {
			sys.RawSchedYield()
			if a.fp {
				ctxswTouch(&a.touch)
			}
			n += 2
			sh.iterations = n
			if n >= a.limit || sh.stop != 0 {
				atomic.StoreUint32(&sh.last, 1)
				break
			}
		}
	case ctxswPipe:
		for {
			eof, er := ctxswRead(a, &tok)
			if er != 0 || eof {
				code, e = ctxswErrRead, er
				if eof {
					code = ctxswErrEOF
				}
				break
			}
			if a.fp {
				ctxswTouch(&a.touch)
			}
			last := n+2 >= a.limit || sh.stop != 0
			if last {
				atomic.StoreUint32(&sh.last, 1)
			}
			if e = ctxswWrite(a, &tok); e != 0 {
				code = ctxswErrWrite
				break
			}
			if a.fp {
				ctxswTouch(&a.touch)
			}
			n += 2
			sh.iterations = n
			if last {
				break
			}
		}
	case ctxswFutex:
		for {
			if e = ctxswLock(&sh.m2, a.private); e != 0 {
				code = ctxswErrFutex
				break
			}
			last := n+2 >= a.limit || sh.stop != 0
			if last {
				atomic.StoreUint32(&sh.last, 1)
			}
			if e = ctxswUnlock(&sh.m1, a.private); e != 0 {
				code = ctxswErrFutex
				break
			}
			n += 2
			sh.iterations = n
			if last {
				break
			}
		}
	}
	atomic.StoreInt64(&sh.end, sys.RawMonotonicNs())
	return ctxswLeave(a, code, e)
}

// ctxswTask2 is the selftest's thread 2; it ends after task 1's last
// handoff.
//
//go:nosplit
//go:norace
func ctxswTask2(p unsafe.Pointer) int {
	a := (*ctxswTask)(p)
	sh := a.sh
	ctxswArrive(a)
	var tok byte
	code, e := ctxswOK, syscall.Errno(0)
	switch a.test {
	case ctxswYield:
		for sh.last == 0 {
			sys.RawSchedYield()
			if a.fp {
				ctxswTouch(&a.touch)
			}
		}
	case ctxswPipe:
		for {
			if e = ctxswWrite(a, &tok); e != 0 {
				code = ctxswErrWrite
				break
			}
			if a.fp {
				ctxswTouch(&a.touch)
			}
			eof, er := ctxswRead(a, &tok)
			if er != 0 || eof {
				code, e = ctxswErrRead, er
				if eof {
					code = ctxswErrEOF
				}
				break
			}
			if a.fp {
				ctxswTouch(&a.touch)
			}
			if sh.last != 0 {
				break
			}
		}
	case ctxswFutex:
		for {
			if e = ctxswUnlock(&sh.m2, a.private); e != 0 {
				code = ctxswErrFutex
				break
			}
			if e = ctxswLock(&sh.m1, a.private); e != 0 {
				code = ctxswErrFutex
				break
			}
			if sh.last != 0 {
				break
			}
		}
	}
	return ctxswLeave(a, code, e)
}

// ctxswLock is the selftest's mutex_lock, Drepper's three-state futex
// mutex (0 free, 1 locked, 2 locked with waiters). The selftest's
// cmpxchg returns the old value; a failed compare-and-swap followed by a
// load of a non-zero value is the same answer.
//
//go:nosplit
func ctxswLock(m *uint32, private bool) syscall.Errno {
	var c uint32
	for !atomic.CompareAndSwapUint32(m, 0, 1) {
		if c = atomic.LoadUint32(m); c != 0 {
			break
		}
	}
	if c == 0 {
		return 0
	}
	if c == 1 {
		c = atomic.SwapUint32(m, 2)
	}
	for c != 0 {
		if e := sys.RawFutexWait(m, 2, private); e != 0 && e != sys.EAGAIN && e != sys.EINTR {
			return e
		}
		c = atomic.SwapUint32(m, 2)
	}
	return 0
}

// ctxswUnlock is the selftest's mutex_unlock.
//
//go:nosplit
func ctxswUnlock(m *uint32, private bool) syscall.Errno {
	if atomic.LoadUint32(m) == 2 {
		atomic.StoreUint32(m, 0)
	} else if atomic.SwapUint32(m, 0) == 1 {
		return 0
	}
	return sys.RawFutexWake(m, 1, private)
}

// ctxswSampler is the main thread's part in the window: the selftest's
// alarm(1) handler, which takes the count once a second.
type ctxswSampler struct {
	sh      *ctxswShared
	private bool
	start   int64 // CLOCK_MONOTONIC at the gate, in ns
	seconds int   // samples after which to stop the tasks; 0: none
	counts  []int64
	taken   int
}

// ctxswMaxSeconds bounds the samples of a run stopped by its switch
// count.
const ctxswMaxSeconds = 3600

// ctxswGrace is how long the tasks may take to end once told to stop.
const ctxswGrace = 5e9

// sample takes the count at every whole second from the start until both
// tasks are done, setting stop after s.seconds samples. It sleeps in a
// raw futex wait on the done count in between. It returns false when the
// tasks did not end within ctxswGrace of the stop (a task killed, or
// stuck).
//
//go:nosplit
//go:norace
func (s *ctxswSampler) sample() bool {
	sh := s.sh
	counts := s.counts
	next := s.start + 1e9
	var stopped int64
	for {
		d := atomic.LoadUint32(&sh.done)
		if d >= 2 {
			return true
		}
		now := sys.RawMonotonicNs()
		if stopped == 0 && atomic.LoadUint32(&sh.failed) != 0 {
			// The other task may be blocked for good: give it the
			// grace, then let Run release it.
			atomic.StoreUint32(&sh.stop, 1)
			stopped = now
		}
		if stopped != 0 && now-stopped > ctxswGrace {
			return false
		}
		if now < next {
			sys.RawFutexWaitFor(&sh.done, d, s.private, next-now)
			continue
		}
		if k := s.taken; uint(k) < uint(len(counts)) {
			counts[k] = atomic.LoadInt64(&sh.iterations)
			s.taken = k + 1
			if k+1 == s.seconds {
				atomic.StoreUint32(&sh.stop, 1)
				stopped = now
			}
		}
		next += 1e9
	}
}

// ctxswMemory returns the tasks' shared state: process memory for
// threads, a shared anonymous mapping for processes.
func ctxswMemory(process bool) (*ctxswShared, func(), error) {
	if !process {
		return new(ctxswShared), func() {}, nil
	}
	words := (int(unsafe.Sizeof(ctxswShared{})) + 7) / 8
	mem, unmap, err := sys.SharedInt64s(words)
	if err != nil {
		return nil, nil, fmt.Errorf("context_switch: %w", err)
	}
	return (*ctxswShared)(unsafe.Pointer(&mem[0])), func() { _ = unmap() }, nil
}

func (contextSwitch) Run(t *Task) error {
	test := ctxswTests[t.Params.String("test")]
	process := t.Params.String("mode") == "process"
	fp := t.Params.Bool("fp") && test != ctxswFutex
	seconds, limit := t.Params.Int("timeout"), int64(t.Params.Int("switches"))
	if limit > 0 {
		seconds = 0
	} else {
		limit = math.MaxInt64
	}
	place, err := parseCtxswCPUs(t.Params.String("cpus"))
	if err != nil {
		return err
	}
	allowed, err := sys.Affinity(0)
	if err != nil {
		return fmt.Errorf("context_switch: %w", err)
	}
	cpus := place.cpu
	if place.auto {
		c := pickOnlineCPU(allowed)
		cpus = [2]int{c, c}
	}
	describeCtxsw(t, process, cpus, fp, place.auto)
	cancel := sys.CancelWord{Toggle: t.Params.String("cancel") == "toggle"}

	sh, unmap, err := ctxswMemory(process)
	if err != nil {
		return err
	}
	defer unmap()
	r := &ctxswRun{process: process, cpus: cpus, allowed: allowed, sh: sh}
	defer r.cleanup()
	if test == ctxswFutex {
		// Both mutexes locked at setup, as the selftest's futex_setup.
		sh.m1, sh.m2 = 1, 1
	}
	r.tasks = [2]*ctxswTask{
		{sh: sh, test: test, private: !process, fp: fp, rfd: -1, wfd: -1, limit: limit, cancel: cancel},
		{sh: sh, test: test, private: !process, fp: fp, rfd: -1, wfd: -1, cancel: cancel},
	}
	if test == ctxswPipe {
		if err := r.openPipes(); err != nil {
			return err
		}
	}
	n := seconds
	if n == 0 {
		n = ctxswMaxSeconds
	}
	s := &ctxswSampler{sh: sh, private: !process, seconds: seconds, counts: make([]int64, n)}
	if process {
		// Only the main thread blocks in raw calls here.
		Prepare(1)
	} else {
		// Both tasks and the sampler block in raw calls.
		Prepare(3)
	}
	if err := t.Ready(); err != nil {
		return err
	}

	if err := r.start(); err != nil {
		return err
	}
	if !ctxswWait(&sh.ready, 2, !process, 10*time.Second) || atomic.LoadUint32(&sh.failed) != 0 {
		return r.abort("the tasks did not reach the start")
	}
	s.start = sys.RawMonotonicNs()
	atomic.StoreUint32(&sh.gate, 1)
	sys.RawFutexWake(&sh.gate, 2, !process)
	if !s.sample() {
		return r.abort("the tasks did not end in time after the stop")
	}
	end := atomic.LoadInt64(&sh.end)
	if err := t.End(); err != nil {
		return r.abort(err.Error())
	}
	if err := r.reap(); err != nil && atomic.LoadUint32(&sh.failed) == 0 {
		return fmt.Errorf("context_switch: %w", err)
	}
	if atomic.LoadUint32(&sh.failed) != 0 {
		return fmt.Errorf("context_switch: %s", ctxswFailure(sh))
	}

	total := atomic.LoadInt64(&sh.iterations)
	el := end - s.start
	if total <= 0 || el <= 0 {
		return fmt.Errorf("context_switch: no switches counted")
	}
	t.SetOps(float64(total))
	t.Count("switches", float64(total))
	t.Count("seconds_counted", float64(s.taken))
	t.Set("switches/s", float64(total)/(float64(el)/1e9))
	t.Set("ns/switch", float64(el)/float64(total))
	t.Info(result.InfoPerSecond, perSecondText(s.counts[:s.taken]))
	t.Info(result.InfoPerSecondOf, "switches")
	return nil
}

// ctxswRun is one run's tasks and what it must undo.
type ctxswRun struct {
	process  bool
	cpus     [2]int
	allowed  []int
	sh       *ctxswShared
	tasks    [2]*ctxswTask
	fds      []int
	pids     []int    // process mode: the forked tasks not yet reaped
	setupErr [2]error // thread mode: a task that could not pin itself
}

var ctxswBodies = [2]func(unsafe.Pointer) int{ctxswTask1, ctxswTask2}

// openPipes makes the pipe test's two pipes: pipe 1 carries task 2's
// token to task 1, pipe 2 the way back.
func (r *ctxswRun) openPipes() error {
	r1, w1, err := sys.Pipe()
	if err != nil {
		return fmt.Errorf("context_switch: %w", err)
	}
	r.fds = append(r.fds, r1, w1)
	r2, w2, err := sys.Pipe()
	if err != nil {
		return fmt.Errorf("context_switch: %w", err)
	}
	r.fds = append(r.fds, r2, w2)
	r.tasks[0].rfd, r.tasks[0].wfd = r1, w2
	r.tasks[1].rfd, r.tasks[1].wfd = r2, w1
	return nil
}

// start creates the two tasks, each pinned to its CPU before it reaches
// the gate: forked processes, or goroutines on locked threads.
func (r *ctxswRun) start() error {
	if r.process {
		pids, err := ctxswFork(r.tasks, ctxswBodies, r.cpus, r.allowed)
		r.pids = pids
		return err
	}
	for i, a := range r.tasks {
		go func() {
			// Locked for good: the pinned thread exits with the
			// goroutine instead of going back to the runtime's pool.
			runtime.LockOSThread()
			if err := sys.SetAffinity(0, []int{r.cpus[i]}); err != nil {
				r.setupErr[i] = err
				ctxswLeave(a, ctxswErrSetup, 0)
				atomic.AddUint32(&a.sh.ready, 1)
				sys.RawFutexWake(&a.sh.ready, 1, true)
				return
			}
			ctxswBodies[i](unsafe.Pointer(a))
		}()
	}
	return nil
}

// release lets whatever task still runs reach its end: task 2 ends after
// last, a blocked read at end of file, a lock once unlocked; forked tasks
// are killed.
func (r *ctxswRun) release() {
	sh, private := r.sh, !r.process
	atomic.StoreUint32(&sh.stop, 1)
	atomic.StoreUint32(&sh.last, 1)
	atomic.StoreUint32(&sh.gate, 1)
	sys.RawFutexWake(&sh.gate, 2, private)
	r.closeFds()
	atomic.StoreUint32(&sh.m1, 0)
	atomic.StoreUint32(&sh.m2, 0)
	sys.RawFutexWake(&sh.m1, 1, private)
	sys.RawFutexWake(&sh.m2, 1, private)
	for _, pid := range r.pids {
		_ = sys.Signal(pid, syscall.SIGKILL)
	}
}

func (r *ctxswRun) closeFds() {
	for _, fd := range r.fds {
		sys.Close(fd)
	}
	r.fds = nil
}

// reap waits for the forked tasks.
func (r *ctxswRun) reap() error {
	var errs []error
	for i, pid := range r.pids {
		if err := sys.WaitChild(pid); err != nil {
			errs = append(errs, fmt.Errorf("task %d: %w", i+1, err))
		}
	}
	r.pids = nil
	return errors.Join(errs...)
}

// abort ends a run that went wrong and says why.
func (r *ctxswRun) abort(what string) error {
	r.release()
	if !r.process {
		ctxswWait(&r.sh.done, 2, true, ctxswGrace)
	}
	reaped := r.reap()
	if err := errors.Join(r.setupErr[:]...); err != nil {
		return fmt.Errorf("context_switch: pin the tasks to CPUs %d,%d: %w", r.cpus[0], r.cpus[1], err)
	}
	if reaped != nil {
		// A task that died (a signal) reported nothing of its own.
		return fmt.Errorf("context_switch: %s (%s; %v)", what, ctxswFailure(r.sh), strings.ReplaceAll(reaped.Error(), "\n", "; "))
	}
	return fmt.Errorf("context_switch: %s (%s)", what, ctxswFailure(r.sh))
}

// cleanup undoes what is left at the end of Run.
func (r *ctxswRun) cleanup() {
	if r.pids != nil {
		r.release()
		_ = r.reap()
	}
	r.closeFds()
}

// ctxswFork forks the two tasks without exec, each from the main thread
// pinned to its CPU, so it starts there as the selftest's child does
// after its sched_setaffinity; the main thread gets its mask back. The
// tasks are forked lean (sys.ForkArena), each with its orders copied
// into the arena; what they share is in ctxswMemory's shared mapping.
func ctxswFork(tasks [2]*ctxswTask, bodies [2]func(unsafe.Pointer) int, cpus [2]int, allowed []int) ([]int, error) {
	var pids []int
	fail := func(err error) ([]int, error) {
		for _, pid := range pids {
			_ = sys.Signal(pid, syscall.SIGKILL)
			_ = sys.WaitChild(pid)
		}
		return nil, fmt.Errorf("context_switch: %w", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	arena, err := sys.NewForkArena(4096)
	if err != nil {
		return fail(err)
	}
	defer arena.Free()
	for i, a := range tasks {
		c, err := sys.ArenaNew[ctxswTask](arena)
		if err != nil {
			return fail(err)
		}
		*c = *a
		tasks[i] = c
	}
	if err := arena.Lean(); err != nil {
		return fail(err)
	}
	for i := range tasks {
		if err := sys.SetAffinity(0, []int{cpus[i]}); err != nil {
			_ = sys.SetAffinity(0, allowed)
			return fail(fmt.Errorf("pin task %d to CPU %d: %w", i+1, cpus[i], err))
		}
		pid, err := arena.Fork(bodies[i], unsafe.Pointer(tasks[i]), 0)
		if err != nil {
			_ = sys.SetAffinity(0, allowed)
			return fail(err)
		}
		pids = append(pids, pid)
	}
	if err := sys.SetAffinity(0, allowed); err != nil {
		return fail(err)
	}
	return pids, nil
}

// ctxswWait waits, outside the window, until the futex word w reaches n,
// for at most limit; it reports whether it did.
func ctxswWait(w *uint32, n uint32, private bool, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		v := atomic.LoadUint32(w)
		if v >= n {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		sys.RawFutexWaitFor(w, v, private, min(left, 100*time.Millisecond).Nanoseconds())
	}
}

// ctxswFailure says which call a task failed in.
func ctxswFailure(sh *ctxswShared) string {
	code := atomic.LoadUint32(&sh.failed)
	if code == 0 {
		return "no task reported a failure"
	}
	what := "unknown failure"
	if int(code) < len(ctxswErrText) {
		what = ctxswErrText[code]
	}
	if e := syscall.Errno(atomic.LoadUint32(&sh.errno)); e != 0 {
		return fmt.Sprintf("a task failed in %s: %v", what, e)
	}
	return "a task failed in " + what
}

// describeCtxsw records the run's setup, with the selftest's header line.
func describeCtxsw(t *Task, process bool, cpus [2]int, fp, auto bool) {
	mode := "threads"
	if process {
		mode = "processes"
	}
	yes := map[bool]string{true: "yes", false: "no"}
	t.Info("header", fmt.Sprintf("Using %s with %s on cpus %d/%d touching FP:%s altivec:no vector:no vdso:no",
		mode, t.Params.String("test"), cpus[0], cpus[1], yes[fp]))
	how := "as given"
	if auto {
		how = "pick_online_cpu()"
	}
	t.Info("placement", fmt.Sprintf("task1=%d task2=%d (%s)", cpus[0], cpus[1], how))
	t.Info("touch", "fp: float64 add through a function not inlined ("+yes[fp]+"); altivec, vector: off (need per-architecture assembly), as --no-altivec --no-vector")
	if t.Params.String("test") == "futex" {
		if process {
			t.Info("futex", "two three-state mutexes in a MAP_SHARED|MAP_ANONYMOUS page (the selftest: a SysV shm page), shared futex calls")
		} else {
			t.Info("futex", "two three-state mutexes in process memory, FUTEX_PRIVATE_FLAG")
		}
	}
	if p, err := sys.Scheduler(0); err == nil && p.Policy != sys.SchedFIFO && p.Policy != sys.SchedRR && t.Params.String("test") == "yield" {
		t.Info("warning", "sched_yield under "+p.String()+": its meaning changes with the kernel (EEVDF, 6.6 and later), so results are not comparable across kernels; the seed mail ran under chrt -f 98 (kdelta run --fifo 98)")
	}
}

// perSecondText writes the per-second counts of cumulative samples, as
// the selftest prints them, one after another.
func perSecondText(cum []int64) string {
	parts := make([]string, len(cum))
	prev := int64(0)
	for i, c := range cum {
		parts[i] = strconv.FormatInt(c-prev, 10)
		prev = c
	}
	return strings.Join(parts, " ")
}
