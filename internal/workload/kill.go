package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// The kill workload is stress-ng's kill stressor (stress-kill.c): per
// instance, a re-executed process that ignores SIGUSR1 and a helper child
// that catches it, and per bogo-op the twelve kill() calls of killOp.
//
// The helper is forked without exec (sys.ForkPauser), not re-executed:
// a Go process has several threads, and then SIGSTOP stops them all, and
// SIGUSR1 goes to whichever thread is free while the pausing one sleeps
// on, so neither the wakeups nor the context switches would be those of
// stress-ng's single-threaded child.
//
// Runtime path: every kill is a raw system call on a locked OS thread;
// kill never blocks. The ramp's sleeps and the start barrier's poll do
// block, in raw calls too, so each instance raises GOMAXPROCS with
// Prepare(1) to keep a P free for the runtime. The loop reads the clock
// and draws random pids through functions with stack checks, so the Go
// scheduler preempts it every 10 ms, a thread hand-off each time: on two
// CPUs about 130 futex calls in a 20000-op run, under 0.5% of its
// context switches, measured.
//
// Mode self is not in stress-ng: one thread sends itself SIGUSR1 ops
// times, which measures signal generation and delivery to a handler
// rather than the permission checks and process walks of the stressor.
//
// The metrics are declared once for both modes; a run sets bogo-ops/s and
// kill-calls/s in mode stress-ng, and calls/s in mode self.

const roleKillInstance = "kill-instance"

func init() {
	Register(killWorkload{})
	RegisterWorker(roleKillInstance, killInstanceMain)
}

type killWorkload struct{}

func (killWorkload) Name() string { return "kill" }

func (killWorkload) Doc() string {
	return "stress-ng --kill: kill() on itself, on every process, with bad arguments and on a helper child, per bogo-op"
}

func (killWorkload) Params() []Param {
	return []Param{
		{Name: "instances", Kind: Int, Default: "1", Min: 1, Doc: "instance processes, each with its helper child (stress-ng --kill N)"},
		{Name: "ops", Kind: Int, Default: "20000", Min: 1, Doc: "bogo-ops per instance (stress-ng --kill-ops); kill calls in mode self"},
		{Name: "ramp", Kind: Bool, Default: "true", Doc: "sleep 5.0, 4.5, ... 1.0 ms before the first nine bogo-ops, as stress-ng does"},
		{Name: "mode", Kind: String, Default: "stress-ng", Choices: []string{"stress-ng", "self"}, Doc: "stress-ng's sequence, or a tight kill(getpid(), SIGUSR1) loop on one thread"},
		{Name: "pidmax", Kind: String, Default: "auto", Choices: []string{"auto", "once", "every-op"},
			Doc: "read /proc/sys/kernel/pid_max once (stress-ng 0.17.02+) or on every bogo-op, 3 more syscalls (older, e.g. 0.15 of Debian 12); auto: the installed stress-ng's (once without one)"},
	}
}

// ResolveAuto sets pidmax=auto to what the stress-ng installed here does,
// the one these results will be compared with.
func (killWorkload) ResolveAuto(v Values) {
	if v["pidmax"] == "auto" {
		v["pidmax"] = killPidMaxFor(ToolVersion("stress-ng"))
	}
}

func (killWorkload) Metrics() []result.Metric {
	return []result.Metric{
		{Name: "bogo-ops/s", Unit: "bogo-ops/s", Better: result.Higher,
			Doc: "mode stress-ng: bogo-ops of all instances ÷ mean wall time per instance, as stress-ng's bogo ops/s (real time)"},
		{Name: "kill-calls/s", Unit: "calls/s", Better: result.Higher,
			Doc: "mode stress-ng: successful calls 1-3 ÷ their summed time, per instance, harmonic mean across instances, as stress-ng's kill calls per sec"},
		{Name: "calls/s", Unit: "calls/s", Better: result.Higher,
			Doc: "mode self: kill(getpid(), SIGUSR1) calls ÷ the loop's wall time"},
	}
}

func (killWorkload) Validate(v Values) error {
	if v.String("mode") == "self" && v.Int("instances") != 1 {
		return fmt.Errorf("parameter instances: mode self runs one thread, so instances must be 1 (got %d)", v.Int("instances"))
	}
	return nil
}

// Targets of a call in killOp: a fixed pid, or one known only at run time.
const (
	killFixed  = iota
	killSelf   // the instance itself
	killChild  // the helper child
	killUnused // a pid no process has, found by probing
)

// A killCall is one kill(2) of a bogo-op.
type killCall struct {
	target int
	pid    int // for killFixed
	sig    int
	// timed calls count in kill-calls/s when they succeed.
	timed bool
	name  string
}

// killOp is one bogo-op of stress-kill.c, in its order.
var killOp = []killCall{
	{target: killSelf, sig: int(syscall.SIGUSR1), timed: true, name: "kill(self, SIGUSR1)"},
	{target: killSelf, sig: 0, timed: true, name: "kill(self, 0)"},
	// Walks every process; signal 0 only checks permission, never send a
	// real signal to -1.
	{target: killFixed, pid: -1, sig: 0, timed: true, name: "kill(-1, 0)"},
	{target: killSelf, sig: -1, name: "kill(self, -1)"},
	{target: killSelf, sig: math.MinInt32, name: "kill(self, INT_MIN)"},
	{target: killFixed, pid: 0, sig: math.MinInt32, name: "kill(0, INT_MIN)"},
	{target: killFixed, pid: math.MinInt32, sig: 0, name: "kill(INT_MIN, 0)"},
	{target: killChild, sig: 0, name: "kill(child, 0)"},
	{target: killChild, sig: int(syscall.SIGSTOP), name: "kill(child, SIGSTOP)"},
	{target: killChild, sig: int(syscall.SIGCONT), name: "kill(child, SIGCONT)"},
	{target: killChild, sig: int(syscall.SIGUSR1), name: "kill(child, SIGUSR1)"},
	{target: killUnused, sig: 0, name: "kill(unused, 0)"},
}

// killSequence describes one bogo-op of the kill workload as the run's
// "sequence" info records it: the calls, in order, separated by "; ".
func killSequence() string {
	names := make([]string, len(killOp))
	for i, c := range killOp {
		names[i] = c.name
	}
	return strings.Join(names, "; ")
}

// pidMaxLimit is the kernel's PID_MAX_LIMIT on 64-bit machines
// (include/linux/threads.h), the range stress-ng draws unused pids from
// before it falls back to /proc/sys/kernel/pid_max.
const pidMaxLimit = 4 * 1024 * 1024

// killStats is what one instance tallied; it travels to the parent as
// killRecordSize bytes in the tally file.
type killStats struct {
	bogoOps, calls, timedCalls, timedNs, wallNs, probes, childErrs int64
}

const killRecordSize = 7 * 8

func (s *killStats) fields() []*int64 {
	return []*int64{&s.bogoOps, &s.calls, &s.timedCalls, &s.timedNs, &s.wallNs, &s.probes, &s.childErrs}
}

func (s *killStats) marshal() []byte {
	b := make([]byte, 0, killRecordSize)
	for _, f := range s.fields() {
		b = binary.NativeEndian.AppendUint64(b, uint64(*f))
	}
	return b
}

func (s *killStats) unmarshal(b []byte) {
	for i, f := range s.fields() {
		*f = int64(binary.NativeEndian.Uint64(b[8*i:]))
	}
}

// unusedPid finds a pid with no process, as current stress-ng's
// stress_get_unused_pid_racy does: up to ten random guesses in
// [1023, PID_MAX_LIMIT), each checked with kill(pid, 0) == ESRCH, then ten
// in [1023, pid_max), then pid_max itself. It returns the number of probe
// calls it made, which are kill() calls too. Older stress-ng (0.15, in
// Debian 12) first read /proc/sys/kernel/pid_max on every call, three
// more system calls (openat, read, close) per bogo-op than here.
func unusedPid(r *rand.Rand, pidMax int) (pid int, probes int64) {
	for _, limit := range [2]int{pidMaxLimit, pidMax} {
		if limit <= 1024 {
			continue
		}
		for range 10 {
			pid = 1023 + r.IntN(limit-1023)
			probes++
			if sys.RawKill(pid, 0) == sys.ESRCH {
				return pid, probes
			}
		}
	}
	return pidMax, probes
}

// killLoop runs ops bogo-ops of killOp. It allocates nothing.
func killLoop(ops int, ramp, pidMaxEveryOp bool, self, child, pidMax int, r *rand.Rand) killStats {
	var st killStats
	// For pidmax=every-op: stress-ng 0.15 reads pid_max before each guess
	// of an unused pid; the buffers are made once, outside the loop.
	path := []byte("/proc/sys/kernel/pid_max\x00")
	var buf [32]byte
	delay := 5 * time.Millisecond
	var timed time.Duration
	for op := 0; op < ops; op++ {
		// stress-ng eases in with shrinking sleeps so that many
		// instances do not starve the parent that starts them.
		if ramp && delay >= time.Millisecond {
			sys.RawSleep(delay)
			delay -= 500 * time.Microsecond
		}
		for i := range killOp {
			c := &killOp[i]
			pid := c.pid
			switch c.target {
			case killSelf:
				pid = self
			case killChild:
				pid = child
			case killUnused:
				if pidMaxEveryOp {
					if n, e := sys.RawReadFile(path, buf[:]); e == 0 {
						pidMax = atoiPrefix(buf[:n], pidMax)
					}
				}
				var n int64
				pid, n = unusedPid(r, pidMax)
				st.probes += n
				st.calls += n
			}
			var e syscall.Errno
			if c.timed {
				// stress-ng reads CLOCK_REALTIME around each call;
				// time.Now reads the vDSO clocks and allocates nothing.
				t0 := time.Now()
				e = sys.RawKill(pid, c.sig)
				if e == 0 {
					timed += time.Since(t0)
					st.timedCalls++
				}
			} else {
				e = sys.RawKill(pid, c.sig)
			}
			st.calls++
			if c.target == killChild && e != 0 {
				st.childErrs++
			}
		}
		st.bogoOps++
	}
	st.timedNs = timed.Nanoseconds()
	return st
}

func (killWorkload) Run(t *Task) error {
	ops := t.Params.Int("ops")
	if t.Params.String("mode") == "self" {
		return killSelfRun(t, ops)
	}
	n := t.Params.Int("instances")
	ramp := t.Params.Bool("ramp")
	t.Info("sequence", killSequence())
	// The main thread blocks in raw reads of the ready fd only.
	Prepare(1)
	t.Info("gomaxprocs", strconv.Itoa(runtime.GOMAXPROCS(0)))

	readyR, readyW, err := sys.Pipe()
	if err != nil {
		return fmt.Errorf("kill: %w", err)
	}
	defer sys.Close(readyR)
	readyWF := os.NewFile(uintptr(readyW), "ready")
	defer readyWF.Close()
	wakeR, wakeW, err := sys.Pipe()
	if err != nil {
		return fmt.Errorf("kill: %w", err)
	}
	defer sys.Close(wakeW)
	wakeRF := os.NewFile(uintptr(wakeR), "wake")
	defer wakeRF.Close()
	// Each instance writes its tallies at its own offset (see
	// sys.MemFile), read once all have exited.
	tally, err := sys.MemFile("kdelta-kill", int64(killRecordSize*n))
	if err != nil {
		return fmt.Errorf("kill: %w", err)
	}
	defer tally.Close()

	if err := t.Ready(); err != nil {
		return err
	}
	defer workerProcsEnv()()
	cmds := make([]*exec.Cmd, 0, n)
	abort := func(err error) error {
		for _, cmd := range cmds {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		return fmt.Errorf("kill: %w", err)
	}
	for i := 0; i < n; i++ {
		args := []string{strconv.Itoa(i), strconv.Itoa(ops), strconv.FormatBool(ramp), t.Params.String("pidmax")}
		cmd, err := StartWorker(roleKillInstance, args, []*os.File{readyWF, wakeRF, tally})
		if err != nil {
			return abort(err)
		}
		cmds = append(cmds, cmd)
	}
	readyWF.Close()
	if _, err := kickWorkers(readyR, wakeW, n, nil); err != nil {
		return abort(err)
	}
	var waitErr error
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil && waitErr == nil {
			waitErr = fmt.Errorf("kill: instance %d: %w", i, err)
		}
	}
	if err := t.End(); err != nil && waitErr == nil {
		waitErr = err
	}
	if waitErr != nil {
		return waitErr
	}

	buf := make([]byte, killRecordSize*n)
	if _, err := tally.ReadAt(buf, 0); err != nil {
		return fmt.Errorf("kill: read instance tallies: %w", err)
	}
	var (
		sum        killStats
		wallSum    float64
		invRateSum float64
	)
	for i := 0; i < n; i++ {
		var st killStats
		st.unmarshal(buf[killRecordSize*i:])
		if st.bogoOps != int64(ops) {
			return fmt.Errorf("kill: instance %d did %d bogo-ops, want %d", i, st.bogoOps, ops)
		}
		if st.childErrs > 0 {
			return fmt.Errorf("kill: instance %d: %d kill() calls to its helper child failed (did it die?)", i, st.childErrs)
		}
		if st.timedCalls == 0 || st.timedNs <= 0 {
			return fmt.Errorf("kill: instance %d timed no successful call", i)
		}
		sum.bogoOps += st.bogoOps
		sum.calls += st.calls
		sum.timedCalls += st.timedCalls
		sum.probes += st.probes
		wallSum += float64(st.wallNs) / 1e9
		invRateSum += (float64(st.timedNs) / 1e9) / float64(st.timedCalls)
	}
	t.Set("bogo-ops/s", float64(sum.bogoOps)/(wallSum/float64(n)))
	t.Set("kill-calls/s", float64(n)/invRateSum)
	t.SetOps(float64(sum.bogoOps))
	t.Count("bogo_ops", float64(sum.bogoOps))
	t.Count("kill_calls", float64(sum.calls))
	t.Count("timed_calls", float64(sum.timedCalls))
	t.Count("pid_probes", float64(sum.probes))
	t.Info("helper", "forked without exec, single-threaded: kill(ppid, 0) and pause() in a loop, Go's no-op SIGUSR1 handler")
	return nil
}

// killSelfRun is mode self: ops × kill(getpid(), SIGUSR1) on this thread.
// The handler is Go's own: the runtime catches SIGUSR1 from start-up and,
// unless os/signal.Notify asked for it, its handler returns at once, which
// is what a C no-op handler does. Notify would add, per signal, a wakeup
// of the runtime's signal-forwarding goroutine and a channel send, so it
// is deliberately not used.
func killSelfRun(t *Task, ops int) error {
	Prepare(0)
	if ign, err := sys.SignalIgnored(syscall.SIGUSR1); err != nil {
		return fmt.Errorf("kill: %w", err)
	} else if ign {
		return errors.New("kill: mode self: SIGUSR1 is ignored in this process, so no handler would run")
	}
	pid := os.Getpid()
	// kill() targets the process; the kernel hands the signal to the main
	// thread when it can take it, so only a sender on the main thread runs
	// the handler itself, without waking another thread per call.
	if sys.Gettid() == pid {
		t.Info("sender", "main thread")
	} else {
		t.Info("sender", "not the main thread: each signal wakes the main thread")
	}
	if err := t.Ready(); err != nil {
		return err
	}
	start := time.Now()
	for i := 0; i < ops; i++ {
		if e := sys.RawKill(pid, int(syscall.SIGUSR1)); e != 0 {
			return fmt.Errorf("kill: kill(%d, SIGUSR1): %w", pid, e)
		}
	}
	elapsed := time.Since(start)
	if err := t.End(); err != nil {
		return err
	}
	t.Set("calls/s", float64(ops)/elapsed.Seconds())
	t.SetOps(float64(ops))
	t.Count("kill_calls", float64(ops))
	return nil
}

// atoiPrefix parses the decimal number at the start of b, or returns def.
func atoiPrefix(b []byte, def int) int {
	n, digits := 0, 0
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
		digits++
	}
	if digits == 0 || n < 2 {
		return def
	}
	return n
}

// readPidMax returns /proc/sys/kernel/pid_max, or the kernel's default
// when it cannot be read.
func readPidMax() int {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		return 32768
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 2 {
		return 32768
	}
	return n
}

// killInstanceMain is one stress-ng kill instance: fds 3-5 are the ready
// and wake fds and the tally file.
func killInstanceMain(args []string, files []*os.File) error {
	if len(args) != 4 {
		return fmt.Errorf("want 4 arguments (index, ops, ramp, pidmax), got %q", args)
	}
	idx, err := strconv.Atoi(args[0])
	if err != nil || idx < 0 {
		return fmt.Errorf("bad index %q", args[0])
	}
	ops, err := strconv.Atoi(args[1])
	if err != nil || ops < 1 {
		return fmt.Errorf("bad ops %q", args[1])
	}
	ramp, err := strconv.ParseBool(args[2])
	if err != nil {
		return fmt.Errorf("bad ramp %q", args[2])
	}
	if len(files) != 3 {
		return fmt.Errorf("%d descriptors, want 3", len(files))
	}
	runtime.LockOSThread()
	// The barrier's poll and the ramp's sleeps block in raw calls.
	Prepare(1)

	// stress-ng ignores SIGUSR1 and then forks the child, which installs
	// a no-op handler. Here the child is forked first and keeps the Go
	// runtime's handler, a no-op for SIGUSR1; the end state is the same.
	// SIGCHLD is ignored too: stress-ng leaves it at SIG_DFL, where the
	// kernel drops the child's stop and continue notices as it makes
	// them, but Go catches SIGCHLD and cannot put SIG_DFL back, so each
	// SIGSTOP and SIGCONT would run a handler on some instance thread.
	// With SIG_IGN the notices are not sent at all. The kernel would
	// reap an exiting child itself then, and drop its resource usage with
	// it: stop puts SIGCHLD back first, so the child waits as a zombie and
	// its usage adds to the instance's, which the measured child reaps in
	// turn, as stress-ng's waitpid does.
	sys.IgnoreSignal(syscall.SIGCHLD)
	child, err := sys.ForkPauser()
	if err != nil {
		return err
	}
	stop := func() error {
		// As stress-ng: SIGKILL the child and reap it.
		sys.RestoreSignal(syscall.SIGCHLD)
		_ = sys.Signal(child, syscall.SIGKILL)
		return sys.WaitGone(child)
	}
	sys.IgnoreSignal(syscall.SIGUSR1)
	if ign, err := sys.SignalIgnored(syscall.SIGUSR1); err != nil || !ign {
		_ = stop()
		return fmt.Errorf("SIGUSR1 is not ignored after signal.Ignore (%v)", err)
	}
	pidMax := readPidMax()
	everyOp := args[3] == "every-op"
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))

	if err := workerBarrier(int(files[0].Fd()), int(files[1].Fd())); err != nil {
		_ = stop()
		return err
	}
	// The wall time starts at the barrier, after the fork: stress-ng's
	// per-instance time also takes in its start-up and the synchronised
	// start, but those are process start-up, not kill().
	start := time.Now()
	loop := killLoop(ops, ramp, everyOp, os.Getpid(), child, pidMax, r)
	stopErr := stop()
	wall := time.Since(start)
	if stopErr != nil {
		return stopErr
	}
	loop.wallNs = wall.Nanoseconds()
	if _, err := files[2].WriteAt(loop.marshal(), int64(killRecordSize*idx)); err != nil {
		return fmt.Errorf("write tally: %w", err)
	}
	return nil
}
