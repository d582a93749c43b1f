package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// The messaging workload is perf bench sched messaging (and rt-tests
// hackbench) rebuilt on the same topology: groups of fds receivers and fds
// senders, one socketpair or pipe per receiver, every sender writing
// loops messages of size bytes to every receiver of its group.
//
// Runtime path: every measured read, write and poll is a raw system call
// (sys.Raw*) on a locked OS thread, so the kernel sees the same calls the C
// reference makes and the Go scheduler adds no entersyscall/exitsyscall
// work or thread hand-offs. A raw call that blocks keeps its P, so Prepare
// raises GOMAXPROCS above the number of threads that can block at once:
// every worker thread plus the main thread in thread mode (GOMAXPROCS 803
// for perf's -g 20 -t, which works), and the one thread that blocks in
// each process in process mode. From its barrier to its last message a
// worker runs only nosplit code, so the scheduler never preempts it.
//
// Process mode forks its workers without exec by default (spawn=fork,
// sys.ForkArena), as perf does: each is one thread running raw system
// calls, with no copy of the Go heap.
// spawn=exec re-executes the binary for each worker instead; each is then
// a Go runtime, and a run's counters also hold its start-up (about 200
// system calls and dozens of context switches per worker, against a
// handful after a fork), and its sysmon thread wakes every 10 ms while the
// worker's P is held by a raw call, barrier and timed window included.

const (
	roleMsgReceiver = "messaging-receiver"
	roleMsgSender   = "messaging-sender"
)

func init() {
	Register(messaging{})
	RegisterWorker(roleMsgReceiver, msgReceiverMain)
	RegisterWorker(roleMsgSender, msgSenderMain)
}

type messaging struct{}

func (messaging) Name() string { return "messaging" }

func (messaging) Doc() string {
	return "perf bench sched messaging / hackbench: groups of senders spraying receivers over socketpairs or pipes"
}

func (messaging) Params() []Param {
	return []Param{
		{Name: "groups", Kind: Int, Default: "10", Min: 1, Doc: "groups of senders and receivers (perf -g)"},
		{Name: "fds", Kind: Int, Default: "20", Min: 1, Doc: "receivers, and senders, per group (hackbench -f)"},
		{Name: "loops", Kind: Int, Default: "100", Min: 1, Doc: "messages each sender writes to each receiver (perf -l)"},
		{Name: "size", Kind: Int, Default: "100", Min: 1, Doc: "bytes per message (hackbench -s)"},
		{Name: "mode", Kind: String, Default: "process", Choices: []string{"process", "thread"}, Doc: "workers are processes or threads (perf -t)"},
		{Name: "ipc", Kind: String, Default: "socket", Choices: []string{"socket", "pipe"}, Doc: "AF_UNIX socketpairs or pipes (perf -p)"},
		{Name: "spawn", Kind: String, Default: "fork", Choices: []string{"fork", "exec"}, Doc: "process mode: fork the workers without exec, as perf does, or re-execute the binary for each (a Go runtime per worker)"},
	}
}

func (messaging) Metrics() []result.Metric {
	return []result.Metric{{
		Name: "time", Unit: "s", Better: result.Lower,
		Doc: "from the last ready byte (just before the wake-up write) to the last worker reaped or joined, as perf's Total time",
	}}
}

// msgMaxSize bounds a message; hackbench's default is 100 bytes and a
// message that does not fit a socket buffer only measures splitting.
const msgMaxSize = 1 << 20

func (messaging) Validate(v Values) error {
	if s := v.Int("size"); s > msgMaxSize {
		return fmt.Errorf("parameter size: bad value %d (at most %d)", s, msgMaxSize)
	}
	return nil
}

// msgConfig is a messaging run's parameters.
type msgConfig struct {
	groups, fds, loops, size int
	thread, pipe, exec       bool
}

func msgConfigOf(v Values) msgConfig {
	return msgConfig{
		groups: v.Int("groups"),
		fds:    v.Int("fds"),
		loops:  v.Int("loops"),
		size:   v.Int("size"),
		thread: v.String("mode") == "thread",
		pipe:   v.String("ipc") == "pipe",
		exec:   v.String("spawn") == "exec",
	}
}

func (c msgConfig) workers() int { return 2 * c.groups * c.fds }

// messages is the number of messages a run moves.
func (c msgConfig) messages() int64 {
	return int64(c.groups) * int64(c.fds) * int64(c.fds) * int64(c.loops)
}

// pair returns one fd pair as perf's fdpair does: a blocking AF_UNIX
// stream socketpair or a pipe. The first fd is read, the second written.
func (c msgConfig) pair() (r, w int, err error) {
	if c.pipe {
		return sys.Pipe()
	}
	return sys.SocketPair()
}

func (messaging) Run(t *Task) error {
	c := msgConfigOf(t.Params)
	t.Info("mode", t.Params.String("mode"))
	t.Info("ipc", t.Params.String("ipc"))
	t.Info("workers", strconv.Itoa(c.workers()))
	if err := msgRaiseNoFile(t, c); err != nil {
		return err
	}
	var (
		res     msgResult
		elapsed time.Duration
		err     error
	)
	switch {
	case c.thread:
		elapsed, res, err = msgRunThreads(t, c)
	case c.exec:
		t.Info("spawn", "exec")
		elapsed, res, err = msgRunExec(t, c)
	default:
		t.Info("spawn", "fork")
		elapsed, res, err = msgRunForked(t, c)
	}
	if err != nil {
		return err
	}
	t.Info("gomaxprocs", strconv.Itoa(runtime.GOMAXPROCS(0)))
	t.Set("time", elapsed.Seconds())
	t.SetOps(float64(c.messages()))
	t.Count("messages_sent", float64(res.sent))
	t.Count("messages_received", float64(res.received))
	if res.sent != c.messages() || res.received != c.messages() {
		return fmt.Errorf("messaging: sent %d and received %d messages, want %d", res.sent, res.received, c.messages())
	}
	return nil
}

// msgRaiseNoFile makes room for the run's descriptors. Thread mode holds
// every pair in one process (40 × groups + 4 at perf's defaults, which is
// why `perf bench sched messaging -g 26 -t` fails under a 1024 limit);
// process mode holds one group's pairs at most, but with spawn=exec also
// one pidfd per live worker.
func msgRaiseNoFile(t *Task, c msgConfig) error {
	need := uint64(c.workers() + 2*c.fds + 64)
	soft, _, err := sys.NoFileLimit()
	if err != nil {
		return fmt.Errorf("messaging: read RLIMIT_NOFILE: %w", err)
	}
	if soft >= need {
		t.Info("nofile", fmt.Sprintf("%d, enough for the %d needed", soft, need))
		return nil
	}
	got, err := sys.RaiseNoFileLimit(need)
	if err != nil {
		return fmt.Errorf("messaging: %d groups of %d need about %d descriptors: %w", c.groups, c.fds, need, err)
	}
	t.Info("nofile", fmt.Sprintf("raised from %d to %d for the %d needed", soft, got, need))
	return nil
}

// msgResult holds the workers' own tallies.
type msgResult struct{ sent, received int64 }

// workerBarrier is perf's ready(): tell the parent this worker is ready
// with one byte on the shared ready fd, then wait for the single wake-up
// byte, which nobody consumes, so every poller wakes at once.
func workerBarrier(readyW, wakeR int) error {
	if e := sys.RawBarrier(readyW, wakeR); e != 0 {
		return fmt.Errorf("barrier (ready fd %d, wake fd %d): %w", readyW, wakeR, e)
	}
	return nil
}

// msgReceive is perf's receiver: after the barrier, read packets messages
// of len(buf) bytes from fd, looping on short reads. It returns the number
// of whole messages read. From the barrier to the last message it runs
// only nosplit code (see sys.RawReadMessages), so the Go scheduler never
// preempts it.
func msgReceive(fd, readyW, wakeR, packets int, buf []byte) (int64, error) {
	if err := workerBarrier(readyW, wakeR); err != nil {
		return 0, err
	}
	n, e := sys.RawReadMessages(fd, buf, packets)
	switch {
	case e != 0:
		return int64(n), fmt.Errorf("read fd %d: %w", fd, e)
	case n < packets:
		return int64(n), fmt.Errorf("read fd %d: end of file after %d of %d messages", fd, n, packets)
	}
	return int64(n), nil
}

// msgSend is perf's sender: after the barrier, loops times write one
// message to each of outs in turn, looping on short writes. It returns the
// number of whole messages written. Like msgReceive, it runs only nosplit
// code from the barrier on.
func msgSend(outs []int, readyW, wakeR, loops int, buf []byte) (int64, error) {
	if err := workerBarrier(readyW, wakeR); err != nil {
		return 0, err
	}
	n, e := sys.RawWriteMessages(outs, buf, loops)
	if e != 0 {
		return int64(n), fmt.Errorf("write: %w", e)
	}
	return int64(n), nil
}

// kickWorkers is the parent's side of the barrier: read one ready byte
// per worker, take the start time, write the single wake-up byte.
func kickWorkers(readyR, wakeW, workers int, beforeStart func() error) (time.Time, error) {
	var b [1]byte
	for i := 0; i < workers; {
		n, e := sys.RawRead(readyR, b[:])
		switch {
		case e == sys.EINTR:
			continue
		case e != 0:
			return time.Time{}, fmt.Errorf("read ready fd %d: %w", readyR, e)
		case n == 0:
			return time.Time{}, fmt.Errorf("ready fd %d closed after %d of %d workers were ready", readyR, i, workers)
		}
		i++
	}
	if beforeStart != nil {
		if err := beforeStart(); err != nil {
			return time.Time{}, err
		}
	}
	start := time.Now()
	if err := sys.RawWriteFull(wakeW, b[:]); err != nil {
		return time.Time{}, fmt.Errorf("wake: %w", err)
	}
	return start, nil
}

// msgFds closes a list of descriptors on return.
type msgFds []int

func (f *msgFds) add(fds ...int) { *f = append(*f, fds...) }

func (f msgFds) close() {
	for _, fd := range f {
		sys.Close(fd)
	}
}

// barrier makes the ready and wake pairs of the start barrier, of the
// kind ipc names, and hands them to fds to close.
func (c msgConfig) barrier(fds *msgFds) (readyR, readyW, wakeR, wakeW int, err error) {
	if readyR, readyW, err = c.pair(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("messaging: %w", err)
	}
	fds.add(readyR, readyW)
	if wakeR, wakeW, err = c.pair(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("messaging: %w", err)
	}
	fds.add(wakeR, wakeW)
	return readyR, readyW, wakeR, wakeW, nil
}

// msgRunThreads runs every worker as a raw thread of this process
// (sys.StartRawThread), as perf -t runs pthreads: no thread of the Go
// runtime runs or wakes beside them, and, like perf -t, it closes no
// descriptor until the run is over. The window ends, as perf's does
// after pthread_join, when the last worker thread has exited; this
// thread waits for each in the futex of its exit, its P given back.
func msgRunThreads(t *Task, c msgConfig) (time.Duration, msgResult, error) {
	workers := c.workers()
	// Only this thread blocks in raw calls (the ready reads).
	Prepare(1)

	var fds msgFds
	defer func() { fds.close() }()
	readyR, readyW, wakeR, wakeW, err := c.barrier(&fds)
	if err != nil {
		return 0, msgResult{}, err
	}
	// Receivers first, then senders, group by group, as perf creates
	// them; each with a buffer of its own, as each of perf's threads has
	// one on its stack.
	tally := make([]int64, workers)
	var stop int
	ws := make([]*msgForked, 0, workers)
	for g := 0; g < c.groups; g++ {
		ins, outs := make([]int, c.fds), make([]int, c.fds)
		for i := range ins {
			r, w, err := c.pair()
			if err != nil {
				return 0, msgResult{}, fmt.Errorf("messaging: pair %d of group %d: %w", i, g, err)
			}
			fds.add(r, w)
			ins[i], outs[i] = r, w
		}
		for _, in := range ins {
			ws = append(ws, &msgForked{in: in, closeFd: -1, readyW: readyW, wakeR: wakeR,
				count: c.fds * c.loops, buf: make([]byte, c.size), tally: tally, idx: len(ws), stop: &stop})
		}
		for range c.fds {
			ws = append(ws, &msgForked{in: -1, closeFd: -1, outs: outs, readyW: readyW, wakeR: wakeR,
				count: c.loops, buf: make([]byte, c.size), tally: tally, idx: len(ws), stop: &stop})
		}
	}

	if err := t.Ready(); err != nil {
		return 0, msgResult{}, err
	}
	ths := make([]*sys.RawThread, 0, workers)
	// abort lets the started workers through the barrier to find stop
	// set, and joins them.
	abort := func(err error) (time.Duration, msgResult, error) {
		stop = 1
		_ = sys.RawWriteFull(wakeW, []byte{0})
		for _, th := range ths {
			_ = th.Join()
		}
		return 0, msgResult{}, err
	}
	for i, a := range ws {
		body := msgThreadSender
		if a.in >= 0 {
			body = msgThreadReceiver
		}
		th, err := sys.StartRawThread(body, unsafe.Pointer(a))
		if err != nil {
			if errors.Is(err, sys.ErrNoRawThread) {
				return abort(Skip("messaging mode=thread: %v", err))
			}
			return abort(fmt.Errorf("messaging: worker %d: %w", i, err))
		}
		ths = append(ths, th)
	}
	// From the go-ahead this thread only waits (OneP).
	defer OneP()()
	start, err := kickWorkers(readyR, wakeW, workers, nil)
	if err != nil {
		return abort(fmt.Errorf("messaging: %w", err))
	}
	// In creation order, as perf joins them.
	var joinErr error
	for i, th := range ths {
		if err := th.Join(); err != nil && joinErr == nil {
			joinErr = fmt.Errorf("messaging: worker %d: %w", i, err)
		}
	}
	elapsed := time.Since(start)
	runtime.KeepAlive(ws)
	if err := t.End(); err != nil && joinErr == nil {
		joinErr = err
	}
	if joinErr != nil {
		return 0, msgResult{}, joinErr
	}
	for i, a := range ws {
		if a.status != 0 {
			return 0, msgResult{}, fmt.Errorf("messaging: worker %d: %s", i, msgWorkerFailure(a))
		}
	}
	t.Info("join", "thread exit (futex), as pthread_join")
	return elapsed, msgTallies(c, tally), nil
}

// msgWorkerFailure says what a worker's status means.
func msgWorkerFailure(a *msgForked) string {
	switch {
	case a.status == 2:
		return "start barrier failed"
	case a.in >= 0:
		return fmt.Sprintf("receiver read %d of %d messages from fd %d", a.tally[a.idx], a.count, a.in)
	default:
		return fmt.Sprintf("sender wrote %d of %d messages", a.tally[a.idx], a.count*len(a.outs))
	}
}

// msgThreadReceiver and msgThreadSender are a raw worker thread's whole
// life: the forked worker's, its status kept for the parent.
//
//go:nosplit
//go:norace
func msgThreadReceiver(p unsafe.Pointer) {
	a := (*msgForked)(p)
	a.status = msgForkedReceiver(p)
}

//go:nosplit
//go:norace
func msgThreadSender(p unsafe.Pointer) {
	a := (*msgForked)(p)
	a.status = msgForkedSender(p)
}

// msgForked is a worker's orders: a forked child reads its own copy,
// taken at the fork, a raw thread the parent's.
type msgForked struct {
	in, closeFd   int // receiver: its pair's read end, and its write end to close (or -1)
	outs          []int
	readyW, wakeR int
	count         int // messages to read, or loops to write
	buf           []byte
	tally         []int64 // shared with the parent
	idx           int
	// Raw threads only: stop, set before the wake-up, sends them home
	// from the barrier when the run is abandoned; status is their result.
	stop   *int
	status int
}

// msgForkedReceiver is a forked receiver's whole life: it closes its
// pair's write end, as perf's receiver does, then runs msgReceive's
// barrier and loop. It may only run nosplit raw calls (see
// sys.ForkArena.Fork).
//
//go:nosplit
//go:norace
func msgForkedReceiver(p unsafe.Pointer) int {
	a := (*msgForked)(p)
	if a.closeFd >= 0 {
		sys.RawClose(a.closeFd)
	}
	if sys.RawBarrier(a.readyW, a.wakeR) != 0 {
		return 2
	}
	if a.stop != nil && *a.stop != 0 {
		return 0
	}
	n, e := sys.RawReadMessages(a.in, a.buf, a.count)
	a.tally[a.idx] = int64(n)
	if e != 0 || n < a.count {
		return 1
	}
	return 0
}

// msgForkedSender is a forked sender's whole life: msgSend's barrier and
// loop.
//
//go:nosplit
//go:norace
func msgForkedSender(p unsafe.Pointer) int {
	a := (*msgForked)(p)
	if sys.RawBarrier(a.readyW, a.wakeR) != 0 {
		return 2
	}
	if a.stop != nil && *a.stop != 0 {
		return 0
	}
	n, e := sys.RawWriteMessages(a.outs, a.buf, a.count)
	a.tally[a.idx] = int64(n)
	if e != 0 {
		return 1
	}
	return 0
}

// msgRunForked runs every worker as a forked child, as perf's default
// mode does, with perf's descriptor handling: a child inherits what the
// parent holds when it is forked, a receiver closes its pair's write end,
// and the parent closes each pair's read end once its receiver is forked
// and a group's write ends once its senders are. The children end without
// a signal to the parent: perf's SIGCHLD is dropped by the kernel at
// SIG_DFL, while a Go parent catches SIGCHLD and would run a handler for
// each. The children are forked lean (sys.ForkArena): none of them
// carries a copy of the Go heap, so each is about as small as perf's.
//
// They are forked by a lean child of their own, the forker, which then
// runs the barrier, the timed window and the reaping (msgForkAll), as
// perf's main process does; a raw thread of this process forks it and
// waits for it, and this thread waits for that thread. A child inherits
// its forker's scheduling history, and neither this process nor a raw
// thread in it would do as the forker:
//   - From Go code, forking 400 children takes longer than the 10 ms after
//     which the scheduler preempts a goroutine, and each preemption of the
//     locked thread hands its P to another runtime thread with a futex
//     wake-up. Each wake-up of a different task raises the forker's
//     wakee_flips, which every child copies and which the scheduler's
//     wake_wide() weighs at the child's wake-ups: the children of a Go
//     forker started with 8 to over 63 flips, hackbench's with 9 to 14,
//     and hackbench's migrated 41% more when its forker's flips were
//     raised that way (README).
//   - A fork of this process, even from a raw thread, copies a memory map
//     of some 70 areas, drops the 29 that Lean marked and wakes runtime
//     threads waiting for the map; the tree's dropped nodes are freed
//     after an RCU grace period, and the grace periods' wake-ups of
//     rcu_preempt at the timer tick land on the forking thread: 19 in
//     400 forks against hackbench's 3, and its children's flips still
//     rose to 38.
//
// The forker is one thread with the lean memory map a child of this
// process has, so it forks as a small C program does, and its children
// start with its flips, 23 to 28: those this process had when it started
// the raw thread, as hackbench's start with its shell's.
func msgRunForked(t *Task, c msgConfig) (time.Duration, msgResult, error) {
	workers := c.workers()
	// Where there are no raw threads this thread forks the forker and
	// blocks in wait4 for it, a raw call.
	Prepare(1)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var fds msgFds
	defer func() { fds.close() }()
	readyR, readyW, wakeR, wakeW, err := c.barrier(&fds)
	if err != nil {
		return 0, msgResult{}, err
	}
	// The workers' tallies, then the forker's report (msgReport).
	shared, unmap, err := sys.SharedInt64s(workers + msgReportLen)
	if err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	defer unmap()
	tally, report := shared[:workers], msgReport(shared[workers:])
	// Every worker's orders and start, the forker's, its stack, the
	// message buffer and a group's write ends are in the arena, the one
	// private memory a lean child keeps.
	each := unsafe.Sizeof(msgForked{}) + unsafe.Sizeof(sys.LeanStart{}) + 3*8
	arena, err := sys.NewForkArena(c.size + workers*int(each) + c.fds*8 + msgForkerStack + 8192)
	if err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	defer arena.Free()
	f, err := msgForkerOf(c, arena, tally, report, readyR, readyW, wakeR, wakeW)
	if err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}

	if err := t.Ready(); err != nil {
		return 0, msgResult{}, err
	}
	if err := arena.Lean(); err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	th, err := sys.StartRawThread(msgForkForker, unsafe.Pointer(f))
	switch {
	case errors.Is(err, sys.ErrNoRawThread):
		msgForkForker(unsafe.Pointer(f))
	case err != nil:
		_ = arena.Unlean()
		return 0, msgResult{}, fmt.Errorf("messaging: forking thread: %w", err)
	default:
		// This thread only waits, in the futex of the raw thread's exit.
		restore := OneP()
		err = th.Join()
		restore()
	}
	if e := arena.Unlean(); err == nil {
		err = e
	}
	if e := t.End(); err == nil {
		err = e
	}
	// A worker still alive after a failure dies with the forker (its
	// death signal), and the forker with the raw thread.
	if err == nil {
		err = report.err(workers)
	}
	if err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	return time.Duration(report[msgEnd] - report[msgStart]), msgTallies(c, tally), nil
}

// msgForkerStack is the forker's stack in the arena; its workers start on
// the arena's own.
const msgForkerStack = 16 << 10

// msgForker is the forker's orders, in the arena. Everything it points
// to is in the arena or shared, and set before the forker starts; the
// raw thread and the forker store integers only (a raw thread must not
// store pointers: see sys.StartRawThread).
type msgForker struct {
	self          *sys.LeanStart   // the forker's start
	pipe          bool             // pipes, not socketpairs
	groups, fds   int              // groups, and receivers (and senders) per group
	readyR, wakeW int              // the barrier's ends it reads and writes
	orders        []*msgForked     // the workers', in creation order
	starts        []*sys.LeanStart // one per order
	outs          []int            // the group's write ends, its senders' outs
	pids          []int            // the workers', set by the forker in its copy
	report        msgReport        // shared
}

// msgReport is what the forker and the raw thread report, in memory
// shared with this process, indexed by the msgStart... constants.
type msgReport []int64

const (
	msgStart = iota // the window's start and end, CLOCK_MONOTONIC ns
	msgEnd
	msgForkd // workers forked, ready and reaped
	msgReady
	msgReaped
	msgStepAt // the step that failed (msgStep), with its errno
	msgErrno
	msgFailed       // the first worker that did not exit with 0, +1
	msgFailedPid    // its pid
	msgStatus       // and its wait status
	msgForkerPid    // the forker's pid
	msgForkerStatus // its wait status, +1 once reaped
	msgReportLen
)

// msgStep names the step that failed.
type msgStep int64

const (
	msgStepNone msgStep = iota
	msgStepPair
	msgStepFork
	msgStepReady
	msgStepWake
	msgStepWait
	msgStepForker
	msgStepForkerWait
)

// msgForkerOf readies the forker's orders and every worker's in the
// arena: receivers then senders, group by group, as perf creates them.
func msgForkerOf(c msgConfig, arena *sys.ForkArena, tally []int64, report msgReport, readyR, readyW, wakeR, wakeW int) (*msgForker, error) {
	workers := c.workers()
	buf, err := sys.ArenaSlice[byte](arena, c.size)
	if err != nil {
		return nil, err
	}
	f, err := sys.ArenaNew[msgForker](arena)
	if err != nil {
		return nil, err
	}
	*f = msgForker{pipe: c.pipe, groups: c.groups, fds: c.fds, readyR: readyR, wakeW: wakeW, report: report}
	if f.outs, err = sys.ArenaSlice[int](arena, c.fds); err != nil {
		return nil, err
	}
	if f.pids, err = sys.ArenaSlice[int](arena, workers); err != nil {
		return nil, err
	}
	if f.orders, err = sys.ArenaSlice[*msgForked](arena, workers); err != nil {
		return nil, err
	}
	if f.starts, err = sys.ArenaSlice[*sys.LeanStart](arena, workers); err != nil {
		return nil, err
	}
	for k := range workers {
		o, err := sys.ArenaNew[msgForked](arena)
		if err != nil {
			return nil, err
		}
		body := msgForkedReceiver
		*o = msgForked{in: -1, closeFd: -1, readyW: readyW, wakeR: wakeR, count: c.fds * c.loops, buf: buf, tally: tally, idx: k}
		if k%(2*c.fds) >= c.fds {
			body = msgForkedSender
			o.outs, o.count = f.outs, c.loops
		}
		if f.starts[k], err = arena.Prepare(body, unsafe.Pointer(o), 0, nil); err != nil {
			return nil, err
		}
		f.orders[k] = o
	}
	stack, err := sys.ArenaSlice[byte](arena, msgForkerStack)
	if err != nil {
		return nil, err
	}
	if f.self, err = arena.Prepare(msgForkAll, unsafe.Pointer(f), 0, stack); err != nil {
		return nil, err
	}
	return f, nil
}

// err says what went wrong, if anything.
func (r msgReport) err(workers int) error {
	var what string
	switch msgStep(r[msgStepAt]) {
	case msgStepNone:
		if r[msgFailed] > 0 {
			return fmt.Errorf("worker %d: %w", r[msgFailed]-1, sys.ExitError(int(r[msgFailedPid]), uint32(r[msgStatus])))
		}
		if r[msgForkerStatus] != 1 {
			return fmt.Errorf("the forker: %w", sys.ExitError(int(r[msgForkerPid]), uint32(r[msgForkerStatus]-1)))
		}
		return nil
	case msgStepPair:
		what = "pair"
	case msgStepFork:
		what = "fork"
	case msgStepReady:
		what = "read ready fd"
	case msgStepWake:
		what = "wake: write"
	case msgStepWait:
		what = fmt.Sprintf("wait4 worker %d", r[msgReaped])
	case msgStepForker:
		what = "fork the forker"
	case msgStepForkerWait:
		what = "wait4 the forker"
	}
	if r[msgErrno] == 0 {
		return fmt.Errorf("%s: end of file after %d of %d workers were ready", what, r[msgReady], workers)
	}
	return fmt.Errorf("%s (%d of %d workers forked): %w", what, r[msgForkd], workers, syscall.Errno(r[msgErrno]))
}

// msgForkForker is the raw thread's life: it forks the forker and reaps
// it.
//
//go:nosplit
//go:norace
func msgForkForker(p unsafe.Pointer) {
	f := (*msgForker)(p)
	pid, e := sys.ForkPrepared(f.self)
	if e != 0 {
		f.report.fail(msgStepForker, e)
		return
	}
	f.report[msgForkerPid] = int64(pid)
	status, e := sys.RawWait4(pid)
	if e != 0 {
		f.report.fail(msgStepForkerWait, e)
		return
	}
	f.report[msgForkerStatus] = int64(status) + 1
}

// fail records the step that failed, the first only.
//
//go:nosplit
//go:norace
func (r msgReport) fail(step msgStep, e syscall.Errno) {
	if r[msgStepAt] == 0 {
		r[msgStepAt], r[msgErrno] = int64(step), int64(e)
	}
}

// msgForkAll is the forker's whole life: perf's main process from its
// first socketpair to its last wait(). It makes each receiver's pair and
// forks the receiver (which closes the write end), closes the read end,
// forks the group's senders with the write ends and closes those; then it
// reads a ready byte per worker, takes the start, writes the wake-up
// byte, reaps every worker in creation order and takes the end. On a
// failure it stops where it is and reports; its workers then die with it.
//
//go:nosplit
//go:norace
func msgForkAll(p unsafe.Pointer) int {
	f := (*msgForker)(p)
	r := f.report
	k := 0
	for range f.groups {
		for i := range f.fds {
			in, out, e := sys.RawPair(f.pipe)
			if e != 0 {
				msgCloseRaw(f.outs[:i])
				r.fail(msgStepPair, e)
				return 1
			}
			o := f.orders[k]
			o.in, o.closeFd = in, out
			pid, e := sys.ForkPrepared(f.starts[k])
			sys.RawClose(in)
			f.outs[i] = out
			if e != 0 {
				msgCloseRaw(f.outs[:i+1])
				r.fail(msgStepFork, e)
				return 1
			}
			f.pids[k] = pid
			k++
			r[msgForkd] = int64(k)
		}
		for range f.fds {
			pid, e := sys.ForkPrepared(f.starts[k])
			if e != 0 {
				msgCloseRaw(f.outs)
				r.fail(msgStepFork, e)
				return 1
			}
			f.pids[k] = pid
			k++
			r[msgForkd] = int64(k)
		}
		msgCloseRaw(f.outs)
	}
	var b byte
	for i := 0; i < k; i++ {
		if eof, e := sys.RawReadN(f.readyR, &b, 1); eof || e != 0 {
			r.fail(msgStepReady, e)
			return 1
		}
		r[msgReady] = int64(i + 1)
	}
	r[msgStart] = sys.RawMonotonicNs()
	if e := sys.RawWriteByte(f.wakeW); e != 0 {
		r.fail(msgStepWake, e)
		return 1
	}
	for i := 0; i < k; i++ {
		status, e := sys.RawWait4(f.pids[i])
		if e != 0 {
			r.fail(msgStepWait, e)
			return 1
		}
		r[msgReaped] = int64(i + 1)
		if status != 0 && r[msgFailed] == 0 {
			r[msgFailed], r[msgFailedPid], r[msgStatus] = int64(i+1), int64(f.pids[i]), int64(status)
		}
	}
	r[msgEnd] = sys.RawMonotonicNs()
	return 0
}

// msgCloseRaw closes fds with raw calls.
//
//go:nosplit
//go:norace
func msgCloseRaw(fds []int) {
	for _, fd := range fds {
		sys.RawClose(fd)
	}
}

// msgTallies sums the workers' counts, by creation index.
func msgTallies(c msgConfig, counts []int64) msgResult {
	var res msgResult
	for i, n := range counts {
		// Worker i of each group's 2 × fds is a receiver for i < fds.
		if i%(2*c.fds) < c.fds {
			res.received += n
		} else {
			res.sent += n
		}
	}
	return res
}

// msgRunExec runs every worker as a re-executed helper process, each
// handed only the descriptors it uses; the parent closes each pair's read
// end once its receiver runs and a group's write ends once its senders
// run.
func msgRunExec(t *Task, c msgConfig) (time.Duration, msgResult, error) {
	workers := c.workers()
	// Only the main thread blocks in raw calls here (the ready reads);
	// reaping goes through the runtime's blocking path.
	Prepare(1)

	var fds msgFds
	defer func() { fds.close() }()
	readyR, readyW, err := c.pair()
	if err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	fds.add(readyR)
	wakeR, wakeW, err := c.pair()
	if err != nil {
		sys.Close(readyW)
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	fds.add(wakeW)
	readyWF := os.NewFile(uintptr(readyW), "ready")
	wakeRF := os.NewFile(uintptr(wakeR), "wake")
	defer readyWF.Close()
	defer wakeRF.Close()
	results, err := sys.MemFile("kdelta-messaging", int64(8*workers))
	if err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	defer results.Close()

	if err := t.Ready(); err != nil {
		return 0, msgResult{}, err
	}
	defer workerProcsEnv()()
	cmds := make([]*exec.Cmd, 0, workers)
	abort := func(err error) (time.Duration, msgResult, error) {
		for _, cmd := range cmds {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		return 0, msgResult{}, fmt.Errorf("messaging: %w", err)
	}
	start := func(role string, args []string, files []*os.File) error {
		cmd, err := StartWorker(role, args, files)
		if err != nil {
			return err
		}
		cmds = append(cmds, cmd)
		return nil
	}
	size := strconv.Itoa(c.size)
	for g := 0; g < c.groups; g++ {
		outs := make([]*os.File, 0, c.fds)
		closeOuts := func() {
			for _, f := range outs {
				f.Close()
			}
		}
		for i := 0; i < c.fds; i++ {
			r, w, err := c.pair()
			if err != nil {
				closeOuts()
				return abort(err)
			}
			in := os.NewFile(uintptr(r), "in")
			outs = append(outs, os.NewFile(uintptr(w), "out"))
			args := []string{strconv.Itoa(len(cmds)), strconv.Itoa(c.fds * c.loops), size}
			err = start(roleMsgReceiver, args, []*os.File{in, readyWF, wakeRF, results})
			in.Close()
			if err != nil {
				closeOuts()
				return abort(err)
			}
		}
		for i := 0; i < c.fds; i++ {
			args := []string{strconv.Itoa(len(cmds)), strconv.Itoa(c.loops), size}
			files := append([]*os.File{readyWF, wakeRF, results}, outs...)
			if err := start(roleMsgSender, args, files); err != nil {
				closeOuts()
				return abort(err)
			}
		}
		closeOuts()
	}
	// With the parent's copy of the ready end closed, workers that all die
	// before the barrier end the wait with EOF instead of a hang.
	readyWF.Close()

	// From the go-ahead this thread only waits (OneP).
	defer OneP()()
	t0, err := kickWorkers(readyR, wakeW, workers, nil)
	if err != nil {
		return abort(err)
	}
	var waitErr error
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil && waitErr == nil {
			waitErr = fmt.Errorf("messaging: worker %d (%s): %w", i, cmd.Args[2], err)
		}
	}
	elapsed := time.Since(t0)
	if err := t.End(); err != nil && waitErr == nil {
		waitErr = err
	}
	if waitErr != nil {
		return 0, msgResult{}, waitErr
	}

	buf := make([]byte, 8*workers)
	if _, err := results.ReadAt(buf, 0); err != nil {
		return 0, msgResult{}, fmt.Errorf("messaging: read worker tallies: %w", err)
	}
	counts := make([]int64, workers)
	for i := range counts {
		counts[i] = int64(binary.NativeEndian.Uint64(buf[8*i:]))
	}
	return elapsed, msgTallies(c, counts), nil
}

// workerProcs is the GOMAXPROCS a helper process with one thread blocking
// in raw calls wants: what Prepare(1) asks for.
const workerProcs = 1 + 2

// workerProcsEnv sets GOMAXPROCS=workerProcs in the environment that
// helper processes inherit, unless it is set already, and returns the
// function that takes it out again. The helpers then start with the Ps
// Prepare(1) asks for instead of raising GOMAXPROCS themselves, a
// stop-the-world that, measured at start-up on two CPUs, cost each helper
// dozens of 100 µs futex sleeps and as many context switches.
func workerProcsEnv() (restore func()) {
	if _, ok := os.LookupEnv("GOMAXPROCS"); ok {
		return func() {}
	}
	os.Setenv("GOMAXPROCS", strconv.Itoa(workerProcs))
	return func() { os.Unsetenv("GOMAXPROCS") }
}

// msgWorkerArgs parses a process-mode worker's arguments: its index in
// the tally file, its message or loop count and the message size.
func msgWorkerArgs(args []string) (idx, count, size int, err error) {
	if len(args) != 3 {
		return 0, 0, 0, fmt.Errorf("want 3 arguments (index, count, size), got %q", args)
	}
	var v [3]int
	for i, a := range args {
		if v[i], err = strconv.Atoi(a); err != nil || v[i] < 0 {
			return 0, 0, 0, fmt.Errorf("bad argument %q", a)
		}
	}
	if v[2] < 1 {
		return 0, 0, 0, fmt.Errorf("bad message size %d", v[2])
	}
	return v[0], v[1], v[2], nil
}

// msgTally writes a worker's count into slot idx of the tally file.
func msgTally(f *os.File, idx int, n int64) error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], uint64(n))
	if _, err := f.WriteAt(b[:], int64(8*idx)); err != nil {
		return fmt.Errorf("write tally: %w", err)
	}
	return nil
}

var errMsgFiles = errors.New("wrong number of descriptors")

// msgReceiverMain is a receiver process: fds 3-6 are its pair's read end,
// the ready and wake fds and the tally file.
func msgReceiverMain(args []string, files []*os.File) error {
	idx, packets, size, err := msgWorkerArgs(args)
	if err != nil {
		return err
	}
	if len(files) != 4 {
		return fmt.Errorf("%w: %d, want 4", errMsgFiles, len(files))
	}
	runtime.LockOSThread()
	Prepare(1)
	buf := make([]byte, size)
	n, err := msgReceive(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()), packets, buf)
	if err != nil {
		return err
	}
	return msgTally(files[3], idx, n)
}

// msgSenderMain is a sender process: fds 3-5 are the ready and wake fds
// and the tally file, and the rest the write ends of its group's pairs.
func msgSenderMain(args []string, files []*os.File) error {
	idx, loops, size, err := msgWorkerArgs(args)
	if err != nil {
		return err
	}
	if len(files) < 4 {
		return fmt.Errorf("%w: %d, want at least 4", errMsgFiles, len(files))
	}
	runtime.LockOSThread()
	Prepare(1)
	outs := make([]int, len(files)-3)
	for i := range outs {
		outs[i] = int(files[3+i].Fd())
	}
	buf := make([]byte, size)
	n, err := msgSend(outs, int(files[0].Fd()), int(files[1].Fd()), loops, buf)
	if err != nil {
		return err
	}
	return msgTally(files[2], idx, n)
}
