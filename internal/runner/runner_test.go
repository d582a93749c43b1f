package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestMain lets the test binary serve as the measured child and as
// workload helpers, as the kdelta binary does.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func specs(t *testing.T, ss ...string) []workload.Spec {
	t.Helper()
	var out []workload.Spec
	for _, s := range ss {
		sp, err := workload.ParseSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sp)
	}
	return out
}

func TestRunInterleavesAndSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	opt := &runner.Options{Repeat: 2, Warmup: 1, Output: path, Version: "test", Env: runner.Fingerprint("test")}
	set, err := runner.Run(context.Background(), specs(t, "syscall:calls=1000", "pipe:loops=100"), opt)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !saved.Complete || len(saved.Benchmarks) != 2 {
		t.Fatalf("saved set: complete=%v, %d benchmarks", saved.Complete, len(saved.Benchmarks))
	}
	for _, b := range set.Benchmarks {
		if len(b.Runs) != 3 {
			t.Fatalf("%s: %d runs, want 1 warm-up + 2", b.Workload, len(b.Runs))
		}
		if !b.Runs[0].Warmup || b.Runs[1].Warmup || b.Runs[2].Index != 1 {
			t.Errorf("%s: runs not in warm-up, 1, 2 order", b.Workload)
		}
		for _, r := range b.Runs {
			if r.Status != result.StatusOK {
				t.Fatalf("%s run %d: %s %s", b.Workload, r.Index, r.Status, r.Reason)
			}
			if r.WallSec <= 0 || r.UserSec+r.SysSec <= 0 {
				t.Errorf("%s: no resource usage recorded: %+v", b.Workload, r)
			}
			// One invocation is one session, named by the set.
			if r.Session != set.ID {
				t.Errorf("%s run %d: session %q, want the set's id %q", b.Workload, r.Index, r.Session, set.ID)
			}
		}
	}
	// Interleaved: run starts alternate between the two benchmarks.
	a, b := set.Benchmarks[0].Runs, set.Benchmarks[1].Runs
	for i := range a {
		if !a[i].Start.Before(b[i].Start) {
			t.Errorf("round %d: syscall did not start before pipe", i)
		}
		if i+1 < len(a) && !b[i].Start.Before(a[i+1].Start) {
			t.Errorf("round %d: pipe did not start before the next syscall run", i)
		}
	}
	if set.Labels["kernel"] == "" || set.Labels["host"] == "" {
		t.Errorf("automatic labels missing: %v", set.Labels)
	}
}

// TestWarmupCapped checks that a long syscall loop warms up on a million
// calls, says so in the warm-up's info, and measures the full count.
func TestWarmupCapped(t *testing.T) {
	opt := &runner.Options{Repeat: 1, Warmup: 1, Version: "test", Env: runner.Fingerprint("test")}
	set, err := runner.Run(context.Background(), specs(t, "syscall:calls=1000100", "syscall:calls=5000"), opt)
	if err != nil {
		t.Fatal(err)
	}
	long, short := set.Benchmarks[0].Runs, set.Benchmarks[1].Runs
	if !long[0].Warmup || long[0].Ops != 1000000 || long[0].Info["warmup_size"] != "calls=1000000" {
		t.Errorf("long warm-up: warmup=%v ops=%v info=%q, want a 1,000,000-call warm-up that says so",
			long[0].Warmup, long[0].Ops, long[0].Info["warmup_size"])
	}
	if long[1].Warmup || long[1].Ops != 1000100 {
		t.Errorf("long measured run: %v ops, want 1000100", long[1].Ops)
	}
	if short[0].Ops != 5000 || short[0].Info["warmup_size"] != "" {
		t.Errorf("short warm-up: %v ops, info %q; want the run's own 5000 calls", short[0].Ops, short[0].Info["warmup_size"])
	}
}

// TestFailureKeepsChildOutput checks that a failed run's reason ends with
// what the child last wrote, and that no child log is left in the
// temporary directory.
func TestFailureKeepsChildOutput(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	opt := &runner.Options{Repeat: 1, Version: "test", Env: runner.Fingerprint("test")}
	sp := runner.CommandSpec([]string{"sh", "-c", "echo first line >&2; echo last words >&2; exit 3"})
	set, err := runner.Run(context.Background(), []workload.Spec{sp}, opt)
	if err != nil {
		t.Fatal(err)
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != result.StatusFailed || !strings.Contains(r.Reason, "first line | last words") {
		t.Errorf("run: status %s, reason %q; want failed with the child's last lines", r.Status, r.Reason)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "kdelta-child-*"))
	if len(left) != 0 {
		t.Errorf("child logs left behind: %v", left)
	}
}

// TestMessagingThreadsJoined checks that thread-mode messaging, run as
// kdelta runs it (on the child's locked main thread), ends its window when
// the worker threads have exited, as perf's pthread_join does.
func TestMessagingThreadsJoined(t *testing.T) {
	want := "thread exit"
	opt := &runner.Options{Repeat: 1, Version: "test", Env: runner.Fingerprint("test")}
	set, err := runner.Run(context.Background(), specs(t, "messaging:mode=thread,groups=2,loops=20"), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != result.StatusOK {
		t.Fatalf("run: %s %s", r.Status, r.Reason)
	}
	if !strings.HasPrefix(r.Info["join"], want) {
		t.Errorf("join: %q, want %q…", r.Info["join"], want)
	}
}

// TestPlacementApplies checks --cpus and --fifo as the child sees them.
func TestPlacementApplies(t *testing.T) {
	allowed, err := sys.Affinity(0)
	if err != nil {
		t.Fatal(err)
	}
	cpu := allowed[len(allowed)-1]
	opt := &runner.Options{Repeat: 1, CPUs: []int{cpu}}
	fifo := os.Geteuid() == 0
	if fifo {
		opt.FIFO = 50
	} else {
		t.Log("not root: checking --cpus only, SCHED_FIFO needs privilege")
	}
	if err := runner.Check(opt); err != nil {
		t.Fatal(err)
	}
	set, err := runner.Run(context.Background(), specs(t, "syscall:calls=1000", "pipe:loops=100,mode=process"), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range set.Benchmarks {
		r := b.Runs[0]
		if r.Status != result.StatusOK {
			t.Fatalf("%s: %s %s", b.Workload, r.Status, r.Reason)
		}
		if got := r.Info["cpus_allowed"]; got != strconv.Itoa(cpu) {
			t.Errorf("%s: child Cpus_allowed_list = %q, want %d", b.Workload, got, cpu)
		}
		if fifo && r.Info["policy"] != "SCHED_FIFO 50" {
			t.Errorf("%s: child policy = %q, want SCHED_FIFO 50", b.Workload, r.Info["policy"])
		}
	}
}

func TestCheckRejects(t *testing.T) {
	if err := runner.Check(&runner.Options{CPUs: []int{4095}}); err == nil || !strings.Contains(err.Error(), "--cpus: CPU 4095 is not available") {
		t.Errorf("Check(--cpus 4095) = %v", err)
	}
	if err := runner.Check(&runner.Options{FIFO: 100}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Check(--fifo 100) = %v", err)
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	opt := &runner.Options{Repeat: 1, Timeout: 300 * time.Millisecond}
	set, err := runner.Run(context.Background(), specs(t, "pipe:loops=100000000"), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != result.StatusTimeout || r.Signal != "killed" {
		t.Fatalf("run: status %s, signal %q, reason %q; want timeout, killed", r.Status, r.Signal, r.Reason)
	}
	waitNoProcess(t, func(p proc) bool { return strings.Contains(p.cmdline, "pipe-peer") && p.ppid == 1 })
}

func TestInterruptKeepsRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	opt := &runner.Options{Repeat: 1000, Output: path}
	go func() {
		// Cancel once a few runs are in the file.
		for {
			if s, err := result.Load(path); err == nil && len(s.Benchmarks[0].Runs) >= 3 {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := runner.Run(ctx, specs(t, "pipe:loops=20000"), opt)
	if err != runner.ErrInterrupted {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	s, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, r := range s.Benchmarks[0].Runs {
		if r.Status == result.StatusOK {
			ok++
		}
	}
	if ok < 3 || s.Complete {
		t.Errorf("after interrupt: %d ok runs, complete=%v; want ≥3, false", ok, s.Complete)
	}
}

// TestSetupOptions checks that a Setup becomes options with the
// fingerprint taken, and that each bad flag is named.
func TestSetupOptions(t *testing.T) {
	opt, err := runner.Setup{CPUs: "0", Repeat: 3, Labels: []string{"kernel=x"}, Version: "test"}.Options()
	if err != nil || len(opt.CPUs) != 1 || opt.CPUs[0] != 0 || opt.Repeat != 3 || opt.Labels["kernel"] != "x" || opt.Env == nil {
		t.Fatalf("options %+v, %v", opt, err)
	}
	for _, tt := range []struct {
		s    runner.Setup
		want string
	}{
		{runner.Setup{CPUs: "x"}, "--cpus"},
		{runner.Setup{CPUs: "4095"}, "CPU 4095 is not available"},
		{runner.Setup{Labels: []string{"nolabel"}}, "nolabel"},
	} {
		if _, err := tt.s.Options(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error naming %s", tt.s, err, tt.want)
		}
	}
}

// TestWindow: the child opens the window when its go-ahead comes and closes
// it itself when its timed part ends (Task.End), before the runner closes
// it again at the result; Start and Finish are called once per run, in
// order, and the window's metrics are defined in every benchmark.
func TestWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switch")
	sw, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	var calls []string
	extra := result.Metric{Name: "f.calls", Unit: "calls", Better: result.Lower}
	opt := &runner.Options{Repeat: 2, Warmup: 0, Version: "test", Metrics: []result.Metric{extra},
		Window: &runner.Window{Switch: sw, On: []byte("1"), Off: []byte("0"),
			Start: func(pid int) error {
				calls = append(calls, "start")
				if pid <= 0 {
					t.Errorf("Start got pid %d", pid)
				}
				return nil
			},
			Finish: func(r *result.Run) {
				b, _ := os.ReadFile(path)
				calls = append(calls, "finish:"+string(b))
				os.Truncate(path, 0)
				r.Values["f.calls"] = 1
			},
		}}
	set, err := runner.Run(context.Background(), specs(t, "syscall:calls=1000"), opt)
	if err != nil {
		t.Fatal(err)
	}
	// The child's 1 and 0, then the runner's 0 at the result.
	if got, want := strings.Join(calls, " "), "start finish:100 start finish:100"; got != want {
		t.Errorf("window calls %q, want %q", got, want)
	}
	b := set.Benchmarks[0]
	if last := b.Metrics[len(b.Metrics)-1]; last != extra {
		t.Errorf("last metric %+v, want the window's %+v", last, extra)
	}
	if v := b.Values("f.calls"); len(v) != 2 {
		t.Errorf("f.calls over the runs: %v", v)
	}
}

// TestWindowStartFails: a window that cannot start fails the run with its
// reason, and Finish is not called for it.
func TestWindowStartFails(t *testing.T) {
	sw, err := os.OpenFile(filepath.Join(t.TempDir(), "switch"), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	finished := 0
	opt := &runner.Options{Repeat: 1, Version: "test",
		Window: &runner.Window{Switch: sw, On: []byte("1"), Off: []byte("0"),
			Start:  func(int) error { return os.ErrPermission },
			Finish: func(*result.Run) { finished++ },
		}}
	set, err := runner.Run(context.Background(), specs(t, "syscall:calls=1000"), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != result.StatusFailed || !strings.Contains(r.Reason, "permission denied") {
		t.Errorf("run %s (%s), want failed with the window's reason", r.Status, r.Reason)
	}
	if finished != 0 {
		t.Errorf("Finish called %d times for a window that never started", finished)
	}
}

// TestExpeditedGPsWarned runs the rcu workload with every grace period
// expedited and with none: the first set warns once, naming the benchmark
// and the knob that measures normal grace periods, the second does not.
func TestExpeditedGPsWarned(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/rcu_normal"); err == nil && strings.TrimSpace(string(b)) == "1" {
		testenv.Skip(t, "rcu_normal=1 overrides rcu_expedited on this machine")
	}
	for _, expedited := range []bool{true, false} {
		t.Run(fmt.Sprintf("expedited=%v", expedited), func(t *testing.T) {
			if expedited {
				testenv.ExpeditedGracePeriods(t)
			} else {
				testenv.NormalGracePeriods(t)
			}
			opt := &runner.Options{Repeat: 2, Output: filepath.Join(t.TempDir(), "r.json"), Version: "test", Env: runner.Fingerprint("test")}
			set, err := runner.Run(context.Background(), specs(t, "rcu:calls=5"), opt)
			if err != nil {
				t.Fatal(err)
			}
			b := set.Benchmarks[0]
			for _, r := range b.Runs {
				if r.Status != result.StatusOK {
					t.Fatalf("run %d: %s %s", r.Index, r.Status, r.Reason)
				}
			}
			var ws []string
			for _, w := range set.Warnings {
				if strings.Contains(w, "grace period") {
					ws = append(ws, w)
				}
			}
			if l := b.Runs[0].Latency; l != nil {
				t.Logf("rcu p50 %.3g %s", l.P50, l.Unit)
			}
			t.Logf("warnings %q", ws)
			if !expedited {
				if len(ws) != 0 {
					t.Errorf("normal grace periods warned: %q", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("grace-period warnings %q, want one for two runs", ws)
			}
			for _, want := range []string{"every RCU grace period was expedited", b.Key(), "--set /sys/kernel/rcu_expedited=0"} {
				if !strings.Contains(ws[0], want) {
					t.Errorf("warning %q lacks %q", ws[0], want)
				}
			}
		})
	}
}
