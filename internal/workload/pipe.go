package workload

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// pipePingPong is `perf bench sched pipe`: two tasks pass a 4-byte token
// over two pipes.
//
// Blocking reads use raw read(2) calls: the Go runtime's Syscall path adds
// entersyscall/exitsyscall on every call and, once sysmon has handed the P
// of a blocked thread to another, a futex wake to get a P back — extra
// context switches the C reference does not make. A raw call keeps its P
// instead, so Prepare raises GOMAXPROCS above the number of threads that
// can block at once (one per process with spawn=exec). With spawn=fork
// and in thread mode the workers are no runtime threads at all: forked
// tasks and raw threads (sys.ForkArena, sys.StartRawThread), as perf's are;
// on an architecture without raw threads thread mode is skipped.
// The fidelity benchmark (bench/fidelity) compares context switches and
// syscalls per op with the reference.
type pipePingPong struct{}

func init() {
	Register(pipePingPong{})
	RegisterWorker("pipe-peer", pipePeer)
}

func (pipePingPong) Name() string { return "pipe" }

func (pipePingPong) Doc() string {
	return "ping-pong over two pipes, as perf bench sched pipe"
}

func (pipePingPong) Params() []Param {
	return []Param{
		{Name: "mode", Default: "process", Choices: []string{"process", "thread"}, Doc: "two processes (perf's default) or two threads (-T)"},
		{Name: "order", Default: "auto", Choices: []string{"auto", "legacy", "symmetric"},
			Doc: "legacy: perf before 6.15 (one side reads first); symmetric: perf 6.15+ (both write first); auto: the installed perf's (symmetric without perf)"},
		{Name: "loops", Kind: Int, Default: "1000000", Min: 1, Doc: "round trips per run"},
		{Name: "cpus", Default: "any", Doc: "placement: any (no pinning, as perf), same, split, or A,B"},
		{Name: "spawn", Default: "fork", Choices: []string{"fork", "exec"},
			Doc: "process mode: fork the peer without exec, as perf does, or re-execute the binary for it (a Go runtime of its own beside it)"},
		{Name: "cancel", Default: "auto", Choices: []string{"auto", "toggle", "none"},
			Doc: "toggle: each read and write costs what glibc before 2.41 adds in a multi-threaded program (two atomic swaps of a per-thread word), as perf -T pays it; none: the bare calls; auto: toggle in thread mode when the installed glibc is older than 2.41, else none"},
	}
}

func (pipePingPong) Metrics() []result.Metric {
	return []result.Metric{
		{Name: "usecs/op", Unit: "us", Better: result.Lower, Doc: "microseconds per loop"},
		{Name: "ops/s", Unit: "ops/s", Better: result.Higher, Doc: "loops per second"},
	}
}

// ResolveAuto sets order=auto to the order of the perf installed here, the
// one these results will be compared with, and cancel=auto to what the
// glibc installed here does around perf's calls in this mode.
func (pipePingPong) ResolveAuto(v Values) {
	if v["order"] == "auto" {
		v["order"] = pipeOrderFor(PerfVersion())
	}
	if v["cancel"] == "auto" {
		v["cancel"] = cancelFor(v["mode"] == "thread", ToolVersion("glibc"))
	}
}

func (pipePingPong) Validate(v Values) error {
	if _, err := parsePlacement(v.String("cpus")); err != nil {
		return err
	}
	if v["cancel"] == "toggle" && v["mode"] == "process" && v["spawn"] == "exec" {
		return fmt.Errorf("cancel=toggle needs the raw workers of mode=thread or spawn=fork, not spawn=exec")
	}
	return nil
}

// placement is the CPU of each worker, or -1 for no pinning.
type placement struct {
	kind string
	cpu  [2]int
}

func parsePlacement(s string) (placement, error) {
	switch s {
	case "any", "same", "split":
		return placement{kind: s, cpu: [2]int{-1, -1}}, nil
	}
	a, b, ok := strings.Cut(s, ",")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 {
		return placement{}, fmt.Errorf("parameter cpus: bad value %q (any, same, split or A,B)", s)
	}
	return placement{kind: "explicit", cpu: [2]int{x, y}}, nil
}

// resolve turns same/split into CPUs from the ones this process may use.
func (p placement) resolve() (placement, error) {
	if p.kind != "same" && p.kind != "split" {
		return p, nil
	}
	allowed, err := sys.Affinity(0)
	if err != nil {
		return p, err
	}
	p.cpu = [2]int{allowed[0], allowed[0]}
	if p.kind == "split" {
		if len(allowed) < 2 {
			return p, Skip("cpus=split needs two CPUs, only %s allowed", sys.FormatCPUList(allowed))
		}
		p.cpu[1] = allowed[1]
	}
	return p, nil
}

// WarmupValues caps a warm-up at 100,000 round trips (about half a second
// here).
func (pipePingPong) WarmupValues(v Values) Values { return capInt(v, "loops", 100000) }

func (pipePingPong) Run(t *Task) error {
	loops := t.Params.Int("loops")
	symmetric := t.Params.String("order") == "symmetric"
	lp := pipeLoop{loops: loops, symmetric: symmetric, cancel: t.Params.String("cancel") == "toggle"}
	pl, err := parsePlacement(t.Params.String("cpus"))
	if err != nil {
		return err
	}
	if pl, err = pl.resolve(); err != nil {
		return err
	}
	t.Info("placement", fmt.Sprintf("%s worker0=%s worker1=%s", pl.kind, cpuName(pl.cpu[0]), cpuName(pl.cpu[1])))

	// pipe1 carries worker 1's token to worker 0, pipe2 the way back.
	r1, w1, err := sys.Pipe()
	if err != nil {
		return err
	}
	r2, w2, err := sys.Pipe()
	if err != nil {
		return err
	}
	thread := t.Params.String("mode") == "thread"
	fork := !thread && t.Params.String("spawn") == "fork"
	if thread || fork {
		Prepare(0)
	} else {
		Prepare(1)
	}
	if err := t.Ready(); err != nil {
		return err
	}
	if fork {
		// Both workers forked, as raw single-threaded tasks: worker 1 in
		// this process would keep its P busy, and the runtime's sysmon
		// would then look in every 10 ms for the whole window. Unpinned,
		// a third task waking that often moves the pair between sharing
		// one CPU and one each (a C ping-pong with a 10 ms ticker thread
		// beside it: 42 us/op against 52). Waiting in wait4, this thread
		// gives its P back and sysmon sleeps.
		el, err := forkPipePair([2]int{r1, r2}, [2]int{w2, w1}, lp, pl.cpu)
		if endErr := t.End(); err == nil {
			err = endErr
		}
		if err != nil {
			return err
		}
		return setPipeFigures(t, loops, el)
	}

	if thread {
		// Both workers are raw threads, as perf's are pthreads: no runtime
		// thread runs or wakes beside them, and this one waits in the
		// futex of their exit with its P given back.
		el, err := threadPipePair([2]int{r1, r2}, [2]int{w2, w1}, lp, pl.cpu)
		if errors.Is(err, sys.ErrNoRawThread) {
			err = Skip("pipe mode=thread: %v", err)
		}
		if endErr := t.End(); err == nil {
			err = endErr
		}
		if err != nil {
			return err
		}
		return setPipeFigures(t, loops, el)
	}

	// spawn=exec: worker 0 is a re-executed kdelta. As perf, the window
	// includes creating and joining the peer.
	start := time.Now()
	fr := os.NewFile(uintptr(r1), "pipe1-r")
	fw := os.NewFile(uintptr(w2), "pipe2-w")
	cmd, err := StartWorker("pipe-peer", []string{strconv.Itoa(loops), strconv.FormatBool(symmetric), strconv.Itoa(pl.cpu[0])}, []*os.File{fr, fw})
	// The peer holds its own copies now; closing ours lets worker 1 see
	// EOF instead of blocking for ever if the peer dies.
	fr.Close()
	fw.Close()
	if err != nil {
		return err
	}
	err1 := pingPong(1, r2, w1, loops, symmetric, pl.cpu[1])
	err0 := cmd.Wait()
	el := time.Since(start)
	if err := t.End(); err != nil {
		return err
	}
	if err1 != nil {
		return fmt.Errorf("worker 1: %w", err1)
	}
	if err0 != nil {
		return fmt.Errorf("worker 0: %w", err0)
	}
	return setPipeFigures(t, loops, el)
}

// setPipeFigures sets perf's figures from the window's length.
func setPipeFigures(t *Task, loops int, el time.Duration) error {
	t.SetOps(float64(loops))
	us := float64(el.Nanoseconds()) / 1e3 / float64(loops)
	t.Set("usecs/op", us)
	t.Set("ops/s", 1e6/us)
	return nil
}

func cpuName(c int) string {
	if c < 0 {
		return "any"
	}
	return strconv.Itoa(c)
}

// pipeFork is a worker's orders: a forked worker reads them from its
// copy of the parent's memory, a raw thread from the parent's own.
type pipeFork struct {
	rfd, wfd, loops int
	readFirst, pin  bool
	mask            sys.RawCPUMask
	tok             [4]byte
	// cancel is glibc's bracket around each read and write.
	cancel sys.CancelWord
	// drop are the other worker's pipe ends, which a forked worker closes
	// first, so that a worker that dies leaves the other at end of file,
	// not blocked; -1 for a thread, which shares one table of files.
	drop [2]int
	// status is a raw thread's result (pipePeer* or 0), and closedW says
	// it closed its write end on failing (pipeThreadBody).
	status  int
	closedW bool
	// The token and the cancel word are written every round trip: the
	// other worker's, on another CPU, must not share their cache line,
	// as perf's threads keep theirs on stacks of their own.
	_ [128]byte
}

// pipeLoop is what both workers of a run do.
type pipeLoop struct {
	loops     int
	symmetric bool // perf 6.15's order; legacy otherwise
	cancel    bool // cancel=toggle
}

// worker returns worker i's orders, over the read end rfd and the write
// end wfd, pinned to cpu unless that is -1.
func (lp pipeLoop) worker(i, rfd, wfd, cpu int) *pipeFork {
	return &pipeFork{rfd: rfd, wfd: wfd, loops: lp.loops, readFirst: i == 0 && !lp.symmetric,
		pin: cpu >= 0, drop: [2]int{-1, -1}, cancel: sys.CancelWord{Toggle: lp.cancel}}
}

// Exit statuses of the forked peer, by what failed.
const (
	pipePeerPin = 1 + iota
	pipePeerRead
	pipePeerEOF
	pipePeerWrite
)

// pipePeerBody is worker 0 as perf's forked child runs it: it pins itself
// if asked, then passes the token loops times. It runs nosplit code
// making raw calls only, so the peer is one task with no runtime around
// it (see sys.ForkArena.Fork).
//
//go:nosplit
//go:norace
func pipePeerBody(p unsafe.Pointer) int {
	a := (*pipeFork)(p)
	if a.pin && a.mask.Apply() != 0 {
		return pipePeerPin
	}
	if a.drop[0] >= 0 {
		sys.RawClose(a.drop[0])
		sys.RawClose(a.drop[1])
	}
	for i := 0; i < a.loops; i++ {
		if a.readFirst {
			if eof, e := pipeRead(a); eof || e != 0 {
				return pipeReadFailed(eof)
			}
		}
		c := a.cancel.Enter()
		e := sys.RawWriteN(a.wfd, &a.tok[0], len(a.tok))
		a.cancel.Leave(c)
		if e != 0 {
			return pipePeerWrite
		}
		if !a.readFirst {
			if eof, e := pipeRead(a); eof || e != 0 {
				return pipeReadFailed(eof)
			}
		}
	}
	return 0
}

// pipeRead is a worker's read of the token, inside glibc's bracket.
//
//go:nosplit
//go:norace
func pipeRead(a *pipeFork) (eof bool, e syscall.Errno) {
	c := a.cancel.Enter()
	eof, e = sys.RawReadN(a.rfd, &a.tok[0], len(a.tok))
	a.cancel.Leave(c)
	return eof, e
}

//go:nosplit
func pipeReadFailed(eof bool) int {
	if eof {
		return pipePeerEOF
	}
	return pipePeerRead
}

// forkPipePair is the window of process mode: it forks worker 0 over
// the read end rfd[0] and the write end wfd[0] (perf's fork() inside the
// window) and worker 1 over rfd[1] and wfd[1], each pinned to its CPU
// unless that is -1, closes this process's copies of the four ends and
// reaps both. A worker that fails has the other killed.
//
// Unpinned, each worker starts where perf's does: worker 0 where fork
// balancing puts it, away from the busy forking CPU, and worker 1 on
// that CPU, where perf's parent goes on as worker 1. Forked as a second
// child it would be balanced too, most often onto worker 0's CPU, which
// is idle while worker 0 waits to read; the pair would start out
// sharing one CPU, a round trip ten times shorter, and stay so for a
// good part of the run.
func forkPipePair(rfd, wfd [2]int, lp pipeLoop, cpu [2]int) (time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	allowed, err := sys.Affinity(0)
	if err != nil {
		return 0, err
	}
	var ws [2]*pipeFork
	for i := range ws {
		o := 1 - i
		ws[i] = lp.worker(i, rfd[i], wfd[i], cpu[i])
		ws[i].drop = [2]int{rfd[o], wfd[o]}
		want := allowed
		if ws[i].pin {
			want = []int{cpu[i]}
		} else if i == 1 {
			ws[i].pin = true // worker 1 widens its mask again once started
		}
		if ws[i].pin {
			m, err := sys.NewRawCPUMask(want)
			if err != nil {
				return 0, err
			}
			ws[i].mask = m
		}
	}
	// The workers are forked lean (sys.ForkArena), with their orders
	// copied into the arena: no copy of the Go heap slows the fork in the
	// window or follows the worker.
	arena, err := sys.NewForkArena(4096)
	if err != nil {
		return 0, err
	}
	defer arena.Free()
	for i := range ws {
		a, err := sys.ArenaNew[pipeFork](arena)
		if err != nil {
			return 0, err
		}
		*a = *ws[i]
		ws[i] = a
	}
	if err := arena.Lean(); err != nil {
		return 0, err
	}
	defer OneP()()
	start := time.Now()
	var pids [2]int
	for i, a := range ws {
		here := -1
		if i == 1 && cpu[1] < 0 {
			if here, err = sys.CurrentCPU(); err == nil {
				err = sys.SetAffinity(0, []int{here})
			}
		}
		var pid int
		if err == nil {
			pid, err = arena.Fork(pipePeerBody, unsafe.Pointer(a), 0)
		}
		if here >= 0 {
			if e := sys.SetAffinity(0, allowed); err == nil {
				err = e
			}
		}
		if err != nil {
			if i == 1 {
				_ = sys.Signal(pids[0], syscall.SIGKILL)
				_ = sys.WaitChild(pids[0])
			}
			return 0, fmt.Errorf("worker %d: %w", i, err)
		}
		pids[i] = pid
	}
	for _, fd := range [4]int{rfd[0], rfd[1], wfd[0], wfd[1]} {
		sys.Close(fd)
	}
	// Each worker holds only its own ends, so one that dies leaves the
	// other at end of file; the kill is for one that hangs.
	var errs [2]error
	for i, pid := range pids {
		if errs[i] = waitPipePeer(pid); errs[i] != nil {
			errs[i] = fmt.Errorf("worker %d: %w", i, errs[i])
			if i == 0 {
				_ = sys.Signal(pids[1], syscall.SIGKILL)
			}
		}
	}
	return time.Since(start), firstPipeFailure(errs)
}

// pipeThreadBody is a worker as perf's pthread runs it (pipePeerBody)
// on a raw thread. One that fails closes its write end, where the other
// worker reads, so the other sees end of file instead of waiting for
// ever.
//
//go:nosplit
//go:norace
func pipeThreadBody(p unsafe.Pointer) {
	a := (*pipeFork)(p)
	if a.status = pipePeerBody(p); a.status != 0 {
		sys.RawClose(a.wfd)
		a.closedW = true
	}
}

// threadPipePair is the window of thread mode: it starts worker 0 over
// the read end rfd[0] and the write end wfd[0] and worker 1 over rfd[1]
// and wfd[1] as raw threads (sys.StartRawThread), each pinned to its CPU
// unless that is -1, joins both, as perf's main thread creates and joins
// its two pthreads inside its window, and closes the four ends. Where
// raw threads are not to be had it returns sys.ErrNoRawThread.
func threadPipePair(rfd, wfd [2]int, lp pipeLoop, cpu [2]int) (time.Duration, error) {
	var ws [2]*pipeFork
	for i := range ws {
		ws[i] = lp.worker(i, rfd[i], wfd[i], cpu[i])
		if ws[i].pin {
			m, err := sys.NewRawCPUMask([]int{cpu[i]})
			if err != nil {
				return 0, err
			}
			ws[i].mask = m
		}
	}
	defer OneP()()
	start := time.Now()
	var ths [2]*sys.RawThread
	var errs [2]error
	for i, a := range ws {
		th, err := sys.StartRawThread(pipeThreadBody, unsafe.Pointer(a))
		if err != nil {
			if i == 0 && errors.Is(err, sys.ErrNoRawThread) {
				for _, fd := range [4]int{rfd[0], rfd[1], wfd[0], wfd[1]} {
					sys.Close(fd)
				}
				return 0, err
			}
			// Worker 0 is left waiting on worker 1's write end.
			errs[i] = fmt.Errorf("worker %d: %w", i, err)
			sys.Close(wfd[1])
			a.closedW = true
			break
		}
		ths[i] = th
	}
	for i, th := range ths {
		if th == nil {
			continue
		}
		if err := th.Join(); err != nil {
			errs[i] = fmt.Errorf("worker %d: %w", i, err)
		} else if code := ws[i].status; code != 0 {
			errs[i] = fmt.Errorf("worker %d: %s", i, pipePeerFailure[code])
		}
	}
	el := time.Since(start)
	for i, a := range ws {
		if !a.closedW {
			sys.Close(wfd[i])
		}
		sys.Close(rfd[i])
	}
	return el, firstPipeFailure(errs)
}

// firstPipeFailure is the error of the worker that failed first: the
// other worker's end of file follows from it.
func firstPipeFailure(errs [2]error) error {
	for _, e := range errs {
		if e != nil && !strings.Contains(e.Error(), pipePeerFailure[pipePeerEOF]) {
			return e
		}
	}
	return cmp.Or(errs[0], errs[1])
}

// pipePeerFailure says what a worker's exit status or status means.
var pipePeerFailure = map[int]string{
	pipePeerPin:   "could not pin itself",
	pipePeerRead:  "read failed",
	pipePeerEOF:   "read end of file: the other worker is gone",
	pipePeerWrite: "write failed",
}

// waitPipePeer reaps a forked worker and says what failed in it.
func waitPipePeer(pid int) error {
	err := sys.WaitChild(pid)
	if err == nil {
		return nil
	}
	for code, what := range pipePeerFailure {
		if strings.HasSuffix(err.Error(), fmt.Sprintf("exited with status %d", code)) {
			return fmt.Errorf("%s (%w)", what, err)
		}
	}
	return err
}

// pipePeer is worker 0 in process mode with spawn=exec: args are loops, symmetric, cpu; the
// files are its read and write ends.
func pipePeer(args []string, files []*os.File) error {
	if len(args) != 3 || len(files) != 2 {
		return fmt.Errorf("pipe-peer: want 3 args and 2 files, got %d and %d", len(args), len(files))
	}
	loops, _ := strconv.Atoi(args[0])
	symmetric, _ := strconv.ParseBool(args[1])
	cpu, _ := strconv.Atoi(args[2])
	runtime.LockOSThread()
	Prepare(1)
	return pingPong(0, int(files[0].Fd()), int(files[1].Fd()), loops, symmetric, cpu)
}

// pingPong is perf's worker_thread: worker 0 reads then writes in legacy
// order, worker 1 writes then reads; in symmetric order both write first.
// The loop is sys.RawPingPong, which the Go scheduler cannot preempt.
func pingPong(nr, rfd, wfd, loops int, symmetric bool, cpu int) error {
	if cpu >= 0 {
		if err := sys.SetAffinity(0, []int{cpu}); err != nil {
			return err
		}
	}
	eof, e := sys.RawPingPong(rfd, wfd, loops, nr == 0 && !symmetric)
	switch {
	case e != 0:
		return fmt.Errorf("pipe fds %d, %d: %w", rfd, wfd, e)
	case eof:
		return fmt.Errorf("read fd %d: unexpected EOF", rfd)
	}
	return nil
}
