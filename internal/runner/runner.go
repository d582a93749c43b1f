// Package runner executes benchmarks: every measured run in a child
// process of its own (the kdelta binary re-executed with ChildArg), with
// its CPU affinity and scheduling policy set before exec, its resource
// usage read from wait4, and its process group killed on timeout or
// interrupt. Runs are interleaved across benchmarks and the result set is
// rewritten after every run, so an interrupted or killed kdelta keeps
// everything it finished.
//
// Schedule is kdelta's one scheduler, and Until.MoreRuns its one "run
// more?" rule: a fixed count, or more runs while a question is open, up to
// a cap of attempted runs. It drives an Executor: the local one of Run and
// RunUntil, a boot of a kernel under test per batch (bisect-run --vm), or a
// round of a job's cells under their knobs (job.Run).
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/outfile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

// Options control a session of runs.
type Options struct {
	Repeat  int           // measured runs per benchmark
	Warmup  int           // warm-up runs per benchmark, recorded but not counted
	CPUs    []int         // affinity of every child; nil: inherit
	FIFO    int           // SCHED_FIFO priority of every child; 0: inherit
	Timeout time.Duration // per run; 0: none
	Output  string        // result file rewritten after every run; "": none
	Labels  map[string]string
	Command []string // the command line, recorded in the set
	Version string   // kdelta's version
	// Progress receives a one-line status after each run (a terminal).
	Progress io.Writer
	// OnReady is called when a child reports it is set up, before it is let
	// go; the returned function is called with the finished run. It is where
	// counters attach.
	OnReady func(pid int) (finish func(*result.Run), err error)
	// OnReadyWarmup, when set, replaces OnReady for warm-up runs: they are
	// not in the statistics, so they can carry probes that would perturb a
	// measured run (a syscall tracepoint costs every syscall).
	OnReadyWarmup func(pid int) (finish func(*result.Run), err error)
	// CommandOutput receives the output of commands run by kdelta stat;
	// nil discards it.
	CommandOutput *os.File
	// Env is the fingerprint recorded in the set.
	Env *sysinfo.Fingerprint
	// Warnings are recorded in the set (the tuning check's findings).
	Warnings []string
	// Record, when set, is called with the set wherever Output is
	// written: after every run. The store records a set this way, run by
	// run; an error stops the session as a failure to write Output does.
	Record func(*result.Set) error
	// Cgroup, when set, is the cgroup every child starts in: a CPU
	// shield's (knob.Session.ShieldCgroup).
	Cgroup *sys.SpawnCgroup
	// RunInfo is recorded in every run's Info (the shield, as
	// sysinfo.Shield says it).
	RunInfo map[string]string
	// Session names the session every run is recorded in (result.Run's
	// Session); "" is the set's id, a session of its own. The cells of
	// an interleaved job pass the one session they share.
	Session string
	// Window, when set, watches the timed part of every run, warm-ups
	// included (kdelta run --funclatency).
	Window *Window
	// Metrics are reported by every benchmark on top of its workload's
	// (the window's figures), and defined in the set after them.
	Metrics []result.Metric
	// Conditions are the run conditions the caller knows beside the
	// runner's own (counters and probes, functions timed): recorded in
	// the set with CPUs, FIFO, shield, warm-up and version (Conditions).
	Conditions map[string]string
}

// RunConditions returns the run conditions of a set measured with opt:
// the caller's, and the placement, policy, shield, warm-up runs and
// version the runner knows.
func (opt *Options) RunConditions() map[string]string {
	c := map[string]string{
		result.CondCPUs:        "all",
		result.CondFIFO:        "off",
		result.CondShield:      "off",
		result.CondFuncLatency: "off",
		result.CondWarmup:      strconv.Itoa(opt.Warmup),
		result.CondVersion:     opt.Version,
	}
	if opt.CPUs != nil {
		c[result.CondCPUs] = sys.FormatCPUList(opt.CPUs)
	}
	if opt.FIFO > 0 {
		c[result.CondFIFO] = strconv.Itoa(opt.FIFO)
	}
	if opt.Env != nil && opt.Env.Shield != nil {
		c[result.CondShield] = opt.Env.Shield.CPUs
	}
	for k, v := range opt.Conditions {
		c[k] = v
	}
	return c
}

// A Window watches the kernel over the timed part of a run. The child
// opens and closes it itself, at the instants its workload's timed part
// starts and ends (workload.Task.Ready returns, workload.Task.End), by
// writing On and then Off to Switch, which it inherits: nothing else runs
// or wakes to do it, and no reading happens inside. A workload that does
// not call End has its window closed by the runner when its result
// arrives or it exits.
type Window struct {
	// Switch is the file the child writes On and Off to (tracefs's
	// tracing_on); the runner writes Off to it too.
	Switch  *os.File
	On, Off []byte
	// Start is called when the child is set up and waiting for its
	// go-ahead, after OnReady, with the window closed: it readies the
	// probe for this run (clears what the last left, names the child's
	// tasks). An error fails the run.
	Start func(pid int) error
	// Finish is called with the finished run, once the window is closed,
	// for every run Start was called for: it reads what the window saw
	// into the run and clears it.
	Finish func(r *result.Run)
}

// close closes the window from the parent's side, as End would have.
func (w *Window) close() {
	w.Switch.Write(w.Off)
}

// ErrInterrupted is returned when the session was stopped by a signal;
// the runs finished before it are in the result set.
var ErrInterrupted = errors.New("interrupted")

// Check validates the options that can be wrong on this machine (CPUs not
// available, SCHED_FIFO without privilege) before anything runs.
func Check(opt *Options) error {
	if opt.CPUs != nil {
		allowed, err := sys.Affinity(0)
		if err != nil {
			return err
		}
		ok := map[int]bool{}
		for _, c := range allowed {
			ok[c] = true
		}
		for _, c := range opt.CPUs {
			if !ok[c] {
				return fmt.Errorf("--cpus: CPU %d is not available here (allowed: %s)", c, sys.FormatCPUList(allowed))
			}
		}
	}
	if opt.FIFO != 0 {
		lo, hi := sys.FIFOPriorityRange()
		if opt.FIFO < lo || opt.FIFO > hi {
			return fmt.Errorf("--fifo: priority %d out of range %d-%d", opt.FIFO, lo, hi)
		}
		if err := probeFIFO(opt.FIFO); err != nil {
			if errors.Is(err, sys.ErrNoPrivilege) && os.Geteuid() == 0 {
				if pc, rerr := os.ReadFile("/proc/self/cgroup"); rerr == nil {
					if why := rtBudget(string(pc), rtBudgetRoots); why != "" {
						return fmt.Errorf("--fifo %d: %s", opt.FIFO, why)
					}
				}
			}
			return fmt.Errorf("--fifo %d: %w", opt.FIFO, err)
		}
	}
	return nil
}

// probeFIFO tries the policy on a scratch thread and restores it.
func probeFIFO(prio int) error {
	errc := make(chan error, 1)
	go func() {
		// The thread's policy is changed and restored; if restoring fails
		// the goroutine exits locked and the runtime retires the thread.
		lockOSThread()
		saved, err := sys.Scheduler(0)
		if err != nil {
			errc <- err
			return
		}
		if err := sys.SetScheduler(0, sys.Policy{Policy: sys.SchedFIFO, Priority: prio}); err != nil {
			errc <- err
			unlockOSThread()
			return
		}
		if err := sys.SetScheduler(0, saved); err != nil {
			errc <- err
			return
		}
		unlockOSThread()
		errc <- nil
	}()
	return <-errc
}

// NewSet starts an empty result set for specs.
func NewSet(specs []workload.Spec, opt *Options) *result.Set {
	s := &result.Set{
		Schema:     result.Schema,
		ID:         newID(),
		Created:    time.Now().UTC(),
		Tool:       "kdelta " + opt.Version,
		Command:    opt.Command,
		Labels:     map[string]string{},
		Env:        opt.Env,
		Conditions: opt.RunConditions(),
		Warnings:   opt.Warnings,
	}
	for k, v := range opt.Labels {
		s.Labels[k] = v
	}
	DefaultLabels(s.Labels, opt.Env)
	for _, sp := range specs {
		s.Benchmarks = append(s.Benchmarks, &result.Benchmark{
			Workload: sp.Workload.Name(),
			Params:   map[string]string(sp.Values),
			Metrics:  slices.Concat(workload.MetricsOf(sp), opt.Metrics),
		})
	}
	return s
}

// DefaultLabels gives labels the host and kernel of env where they are
// not given, so that every set made on this machine is found by kdelta
// history --by kernel (or host) without a --label. A nil env adds none.
func DefaultLabels(labels map[string]string, env *sysinfo.Fingerprint) {
	if env == nil {
		return
	}
	if _, ok := labels["host"]; !ok && env.Hostname.Known() {
		labels["host"] = env.Hostname.Value
	}
	if _, ok := labels["kernel"]; !ok && env.Kernel.Release.Known() {
		labels["kernel"] = env.Kernel.Release.Value
	}
}

func newID() string {
	var b [6]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// Run executes every benchmark of specs, interleaved: warm-ups first, then
// run 1 of each benchmark, run 2 of each, and so on. It returns the set
// with every run attempted; the error is ErrInterrupted when ctx was
// cancelled, or a failure to write the result file.
func Run(ctx context.Context, specs []workload.Spec, opt *Options) (*result.Set, error) {
	return RunUntil(ctx, specs, opt, Until{})
}

// RunUntil runs specs as Run does, then keeps adding runs for as long as
// until gives them (Schedule, Until.MoreRuns): in each batch, run k of
// every benchmark that needs more is taken before run k+1 of any, so the
// added runs stay interleaved. The result set is saved (Record, Output)
// after every run and is Complete only when the session ends normally;
// the error is as Run's.
func RunUntil(ctx context.Context, specs []workload.Spec, opt *Options, until Until) (*result.Set, error) {
	x := &local{set: NewSet(specs, opt), specs: specs, opt: opt, maxRuns: max(until.MaxRuns, opt.Repeat)}
	if err := CheckPins(specs, opt); err != nil {
		return x.set, err
	}
	if err := x.save(); err != nil {
		return x.set, err
	}
	for i, sp := range specs {
		if p, ok := sp.Workload.(workload.Prechecker); ok {
			if reason := p.Precheck(sp.Values); reason != "" {
				skip(x.set.Benchmarks[i], reason)
			}
		}
	}
	if err := Schedule(ctx, x, opt.Warmup, opt.Repeat, until); err != nil {
		return x.set, err
	}
	if opt.Progress != nil {
		fmt.Fprint(opt.Progress, "\r\033[K")
	}
	x.set.Complete = true
	return x.set, x.save()
}

// local is the executor of Run and RunUntil: every run in a child of its
// own on this machine, the set saved after each.
type local struct {
	set     *result.Set
	specs   []workload.Spec
	opt     *Options
	maxRuns int // for the progress line
	// session is the session the runs go into: "" for the first
	// (sessionOf), then one a batch that opens one (Batch.Session).
	session  string
	sessions int
}

// sessionID is the session of the runs added now: the first session's
// (sessionOf), or a later one's, the first's with its number.
func (x *local) sessionID() string {
	if x.session == "" {
		return sessionOf(x.set, x.opt)
	}
	return x.session
}

func (x *local) Sets() []*result.Set { return []*result.Set{x.set} }

// save saves the set as the options say: the store's hook, then the file.
func (x *local) save() error {
	if x.opt.Record != nil {
		if err := x.opt.Record(x.set); err != nil {
			return err
		}
	}
	if x.opt.Output == "" {
		return nil
	}
	// A device or pipe (-o /dev/stdout) takes the set once, at the end.
	if !x.set.Complete && outfile.Stream(x.opt.Output) {
		return nil
	}
	return result.Save(x.opt.Output, x.set)
}

// Run runs batch b: in the first, the warm-ups of every benchmark and then
// its measured runs, round by round; later, round k of every benchmark b
// asks k runs or more of, in order.
func (x *local) Run(ctx context.Context, b Batch) error {
	if !b.First() {
		return x.more(ctx, b)
	}
	opt, set := x.opt, x.set
	total := (b.Warmup + b.Repeat) * len(x.specs)
	done := 0
	for round := 0; round < b.Warmup+b.Repeat; round++ {
		warm := round < b.Warmup
		idx := round - b.Warmup
		if warm {
			idx = round
		}
		for i, sp := range x.specs {
			bm := set.Benchmarks[i]
			done++
			if bm.Skipped != "" {
				continue
			}
			if ctx.Err() != nil {
				return finish(set, x.save, ErrInterrupted)
			}
			if opt.Progress != nil {
				fmt.Fprintf(opt.Progress, "\r\033[K[%d/%d] %s %s", done, total, bm.Workload, runName(warm, idx))
			}
			if err := addRun(ctx, set, bm, sp, opt, x.sessionID(), idx, warm, x.save); err != nil {
				return err
			}
		}
	}
	return nil
}

// more runs a later batch, the set marked incomplete while it does. A
// batch that opens a session (Batch.Session) records its runs under a new
// one, after warm-ups of each benchmark it runs: fresh children after a
// pause of the measuring, as a kdelta run of its own would start, which
// is also what kdelta calibrate's sessions are.
func (x *local) more(ctx context.Context, b Batch) error {
	x.set.Complete = false
	if b.Session {
		x.sessions++
		x.session = fmt.Sprintf("%s/%d", sessionOf(x.set, x.opt), x.sessions+1)
		for w := range b.Warmup {
			for i, n := range b.Runs[0] {
				bm := x.set.Benchmarks[i]
				if n == 0 || bm.Skipped != "" {
					continue
				}
				if ctx.Err() != nil {
					return finish(x.set, x.save, ErrInterrupted)
				}
				if x.opt.Progress != nil {
					fmt.Fprintf(x.opt.Progress, "\r\033[K[session %d] %s %s", x.sessions+1, bm.Workload, runName(true, w))
				}
				if err := addRun(ctx, x.set, bm, x.specs[i], x.opt, x.session, w, true, x.save); err != nil {
					return err
				}
			}
		}
	}
	for k := range b.Most() {
		for i, n := range b.Runs[0] {
			bm := x.set.Benchmarks[i]
			// A run skipped earlier in the batch ends the benchmark's.
			if n <= k || bm.Skipped != "" {
				continue
			}
			if ctx.Err() != nil {
				return finish(x.set, x.save, ErrInterrupted)
			}
			idx := Attempted(bm)
			if x.opt.Progress != nil {
				fmt.Fprintf(x.opt.Progress, "\r\033[K[more, up to %d] %s %s", x.maxRuns, bm.Workload, runName(false, idx))
			}
			if err := addRun(ctx, x.set, bm, x.specs[i], x.opt, x.sessionID(), idx, false, x.save); err != nil {
				return err
			}
		}
	}
	return nil
}

// addRun runs one run of sp into b, in session, and saves the set. It returns
// ErrInterrupted (after saving) when the run was interrupted, or the
// failure to save.
func addRun(ctx context.Context, set *result.Set, b *result.Benchmark, sp workload.Spec, opt *Options, session string, idx int, warm bool, save func() error) error {
	size := ""
	if warm {
		sp, size = workload.WarmupSpec(sp)
	}
	var kmsg *sys.KmsgTail
	if opt.FIFO != 0 {
		// Read after the run, so nothing of it wakes in the window. A
		// kernel log we may not read leaves throttling unknown.
		kmsg, _ = sys.OpenKmsgTail()
	}
	r := runOne(ctx, sp, opt, warm)
	for k, v := range opt.RunInfo {
		if r.Info == nil {
			r.Info = map[string]string{}
		}
		r.Info[k] = v
	}
	r.Session = session
	if kmsg != nil {
		noteRTThrottling(set, b, r, idx, warm, kmsg)
	}
	noteExpeditedGPs(set, b, r)
	if size != "" {
		if r.Info == nil {
			r.Info = map[string]string{}
		}
		r.Info["warmup_size"] = size
	}
	r.Index = idx
	r.Warmup = warm
	b.Runs = append(b.Runs, r)
	if r.Status == result.StatusSkipped {
		b.Skipped = r.Reason
	}
	if err := save(); err != nil {
		return err
	}
	if r.Status == result.StatusInterrupted {
		return finish(set, save, ErrInterrupted)
	}
	return nil
}

// rtThrottled is the kernel's message when it first holds SCHED_FIFO and
// SCHED_RR tasks off a CPU for the rest of a period (kernel/sched/rt.c).
const rtThrottled = "RT throttling activated"

// noteRTThrottling records in r whether the kernel RT-throttled during the
// run (Info rt_throttled), from the kernel log messages kmsg has read
// since the run started, and warns in set the first time. The kernel says
// so once a boot: later throttling goes unseen.
func noteRTThrottling(set *result.Set, b *result.Benchmark, r *result.Run, idx int, warm bool, kmsg *sys.KmsgTail) {
	defer kmsg.Close()
	msgs, err := kmsg.Messages()
	if err != nil {
		return
	}
	if r.Info == nil {
		r.Info = map[string]string{}
	}
	r.Info["rt_throttled"] = "no"
	for _, m := range msgs {
		if strings.Contains(m, rtThrottled) {
			r.Info["rt_throttled"] = "yes"
			what := fmt.Sprintf("run %d", idx+1)
			if warm {
				what = fmt.Sprintf("warm-up run %d", idx+1)
			}
			set.Warnings = append(set.Warnings, fmt.Sprintf("%s of %s was RT-throttled (the kernel said %q): its SCHED_FIFO tasks were held off the CPU for part of a period; --set sysctl.kernel.sched_rt_runtime_us=-1 lets them run (the kernel says this once a boot, so later runs cannot tell)",
				what, b.Key(), m))
			return
		}
	}
}

// expeditedGPs is the start of the warning noteExpeditedGPs gives once a
// set.
const expeditedGPs = "every RCU grace period was expedited"

// noteExpeditedGPs warns in set, once, when a run saw
// /sys/kernel/rcu_expedited at 1 (the rcu workload records it in Info):
// some kernels boot so (rcupdate.rcu_expedited=1), and then membarrier and
// synchronize_rcu return in microseconds where a normal grace period takes
// milliseconds, a difference a reader of the figures should not have to
// find in the run's info.
func noteExpeditedGPs(set *result.Set, b *result.Benchmark, r *result.Run) {
	if r.Info["rcu_expedited"] != "1" || r.Info["rcu_normal"] == "1" {
		return
	}
	for _, w := range set.Warnings {
		if strings.HasPrefix(w, expeditedGPs) {
			return
		}
	}
	set.Warnings = append(set.Warnings, fmt.Sprintf("%s during %s (/sys/kernel/rcu_expedited=1): its grace periods take microseconds, not the milliseconds of normal ones; --set /sys/kernel/rcu_expedited=0 measures normal grace periods",
		expeditedGPs, b.Key()))
}

// sessionOf is the session the runs of set are recorded in.
func sessionOf(set *result.Set, opt *Options) string {
	if opt.Session != "" {
		return opt.Session
	}
	return set.ID
}

func finish(set *result.Set, save func() error, err error) error {
	if serr := save(); serr != nil {
		return serr
	}
	return err
}

func runName(warm bool, i int) string {
	if warm {
		return fmt.Sprintf("warm-up %d", i+1)
	}
	return fmt.Sprintf("run %d", i+1)
}

func skip(b *result.Benchmark, reason string) {
	b.Skipped = reason
	b.Runs = append(b.Runs, &result.Run{Start: time.Now().UTC(), Status: result.StatusSkipped, Reason: reason})
}

// runOne executes one run of sp in a fresh child and returns what happened.
func runOne(ctx context.Context, sp workload.Spec, opt *Options, warm bool) *result.Run {
	onReady := opt.OnReady
	if warm && opt.OnReadyWarmup != nil {
		onReady = opt.OnReadyWarmup
	}
	r := &result.Run{Start: time.Now().UTC(), ExitCode: -1}
	fail := func(status, format string, args ...any) *result.Run {
		r.Status = status
		r.Reason = fmt.Sprintf(format, args...)
		return r
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(result.StatusFailed, "find own executable: %v", err)
	}
	j := job{Workload: sp.Workload.Name(), Params: sp.Values}
	if e, ok := sp.Workload.(*Command); ok {
		j.Exec = e.Argv
	}
	win := opt.Window
	if win != nil {
		j.Window = &jobWindow{On: string(win.On), Off: string(win.Off)}
	}
	jb, _ := json.Marshal(j)
	repR, repW, err := os.Pipe()
	if err != nil {
		return fail(result.StatusFailed, "pipe: %v", err)
	}
	defer repR.Close()
	goR, goW, err := os.Pipe()
	if err != nil {
		repW.Close()
		return fail(result.StatusFailed, "pipe: %v", err)
	}
	defer goW.Close()
	logf, err := sys.AnonymousTemp("kdelta-child-*.log")
	if err != nil {
		repW.Close()
		goR.Close()
		return fail(result.StatusFailed, "child log: %v", err)
	}
	// Nameless: the child writes through its descriptor, and a kdelta
	// killed mid-run leaves no log behind.
	defer logf.Close()

	cmd := exec.Command(exe, ChildArg)
	cmd.Env = childEnv(string(jb))
	cmd.ExtraFiles = []*os.File{repW, goR}
	if win != nil {
		// fd 5, windowFD.
		cmd.ExtraFiles = append(cmd.ExtraFiles, win.Switch)
	}
	cmd.Stdout = logf
	cmd.Stderr = logf
	if opt.CommandOutput != nil && j.Exec != nil {
		cmd.Stdout = opt.CommandOutput
		cmd.Stderr = opt.CommandOutput
	}
	so := sys.SpawnOptions{CPUs: opt.CPUs, NewGroup: true, Pdeathsig: syscall.SIGTERM, Cgroup: opt.Cgroup}
	if opt.FIFO != 0 {
		so.Policy = &sys.Policy{Policy: sys.SchedFIFO, Priority: opt.FIFO}
	}
	start := time.Now()
	err = sys.DefaultSpawner().Start(cmd, so)
	repW.Close()
	goR.Close()
	if err != nil {
		return fail(result.StatusFailed, "start child: %v", err)
	}
	pgid := cmd.Process.Pid

	msgs := make(chan message, 4)
	merr := make(chan error, 1)
	go readMessages(repR, msgs, merr)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var timeout <-chan time.Time
	if opt.Timeout > 0 {
		tm := time.NewTimer(opt.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var finishHook func(*result.Run)
	// The window is open from the child's go-ahead until it closes it
	// (Task.End) or the runner does: at its result, or when it is gone.
	windowStarted, windowClosed := false, false
	closeWindow := func() {
		if windowStarted && !windowClosed {
			win.close()
			windowClosed = true
		}
	}
	var goTime time.Time
	execed := false
	var report *workload.Report
	var status, reason string
	killed := ""
	waitErr := error(nil)
	running := true
	for running {
		select {
		case m, ok := <-msgs:
			if !ok {
				msgs = nil
				continue
			}
			switch m.Type {
			case "ready":
				if onReady != nil {
					f, err := onReady(m.PID)
					if err != nil {
						status, reason = result.StatusFailed, err.Error()
						sys.KillGroup(pgid)
						continue
					}
					finishHook = f
				}
				if win != nil {
					if err := win.Start(m.PID); err != nil {
						status, reason = result.StatusFailed, err.Error()
						sys.KillGroup(pgid)
						continue
					}
					windowStarted = true
				}
				goTime = time.Now()
				goW.Write([]byte{1})
			case "exec":
				execed = true
			case "result":
				closeWindow()
				status, report = result.StatusOK, m.Report
			case "skip":
				closeWindow()
				status, reason = result.StatusSkipped, m.Reason
			case "error":
				closeWindow()
				status, reason, report = result.StatusFailed, m.Reason, m.Report
			}
		case err := <-merr:
			status, reason = result.StatusFailed, err.Error()
			sys.KillGroup(pgid)
		case <-timeout:
			killed = result.StatusTimeout
			sys.KillGroup(pgid)
		case <-ctx.Done():
			killed = result.StatusInterrupted
			sys.KillGroup(pgid)
		case waitErr = <-exited:
			running = false
		}
	}
	exitTime := time.Now()
	closeWindow()
	r.WallSec = exitTime.Sub(start).Seconds()
	// Whatever the child left in its group (a helper that outlived it)
	// goes now.
	sys.KillGroup(pgid)
	// Drain messages the child sent just before exiting.
	for m := range drain(msgs) {
		switch m.Type {
		case "result":
			status, report = result.StatusOK, m.Report
		case "skip":
			status, reason = result.StatusSkipped, m.Reason
		case "error":
			status, reason, report = result.StatusFailed, m.Reason, m.Report
		}
	}
	if ps := cmd.ProcessState; ps != nil {
		r.ExitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Signal = ws.Signal().String()
		}
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.UserSec = tv(ru.Utime)
			r.SysSec = tv(ru.Stime)
			r.VolCtxSw = ru.Nvcsw
			r.InvolCtxSw = ru.Nivcsw
			r.MaxRSSKiB = ru.Maxrss
		}
	}
	if execed && status == "" {
		// The child became the command: its exit status is the result,
		// and the elapsed time runs from the go-ahead to its exit.
		if r.ExitCode == 0 {
			status = result.StatusOK
			report = &workload.Report{Values: map[string]float64{"elapsed": exitTime.Sub(goTime).Seconds()}}
		} else {
			status = result.StatusFailed
			reason = fmt.Sprintf("%s exited with status %d", j.Exec[0], r.ExitCode)
			if r.Signal != "" {
				reason = fmt.Sprintf("%s ended by a signal: %s", j.Exec[0], r.Signal)
			}
		}
	}
	switch {
	case killed == result.StatusTimeout:
		status, reason = killed, fmt.Sprintf("timed out after %s; process group killed", opt.Timeout)
	case killed == result.StatusInterrupted:
		status, reason = killed, "interrupted; process group killed"
	case status == "" && waitErr != nil:
		status, reason = result.StatusFailed, fmt.Sprintf("child %v", waitErr)
	case status == "":
		status, reason = result.StatusFailed, "child exited without a result"
	}
	r.Status, r.Reason = status, reason
	if status == result.StatusFailed {
		if tail := logTail(logf, 5); tail != "" {
			r.Reason += ": " + tail
		}
	}
	if report != nil {
		r.Values = report.Values
		r.Ops = report.Ops
		r.Counts = report.Counts
		r.Latency = report.Latency
		r.Info = report.Info
	}
	if finishHook != nil {
		finishHook(r)
	}
	if windowStarted {
		win.Finish(r)
	}
	return r
}

// childEnv is the environment of a measured child: the caller's, plus the
// job, with the Go runtime told not to preempt with signals (sysmon would
// send SIGURG to a thread in a long raw system call) and not to collect
// garbage (the measured loops allocate nothing).
func childEnv(job string) []string {
	env := []string{jobEnv + "=" + job, "GODEBUG=asyncpreemptoff=1", "GOGC=off"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, jobEnv+"=") || strings.HasPrefix(kv, "GODEBUG=") || strings.HasPrefix(kv, "GOGC=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// drain returns ch, or a closed channel when ch is nil (already drained).
func drain(ch chan message) chan message {
	if ch == nil {
		ch = make(chan message)
		close(ch)
	}
	return ch
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// logTail returns the last n non-empty lines the child wrote, on one line.
func logTail(f *os.File, n int) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(0, fi.Size()-64<<10)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}
