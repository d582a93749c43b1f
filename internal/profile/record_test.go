package profile

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestMain makes the test binary the measured child and the workload
// helpers that the runner re-executes.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// needPerf skips a test on a machine where perf cannot record.
func needPerf(t *testing.T, o Options) {
	t.Helper()
	if err := Check(o); err != nil {
		testenv.Skipf(t, "perf cannot record here: %v", err)
	}
}

// measure runs specs as kdelta run does, n measured runs each, then
// profiles them.
func measure(t *testing.T, o Options, n, profiled int, args ...string) *result.Set {
	t.Helper()
	var specs []workload.Spec
	for _, a := range args {
		sp, err := workload.ParseSpec(a)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	opt := &runner.Options{Repeat: n}
	set, err := runner.Run(context.Background(), specs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := Runs(context.Background(), set, specs, opt, o, profiled); err != nil {
		t.Fatal(err)
	}
	return set
}

// TestProfileSyscall is acceptance 1 at the package's level: three
// measured runs stay three, one profiled run is kept apart, and its top
// kernel symbols hold the syscall entry path.
func TestProfileSyscall(t *testing.T) {
	needPerf(t, Options{})
	set := measure(t, Options{}, 3, 1, "syscall:calls=2000000")
	b := set.Benchmarks[0]
	if got := len(b.Measured()); got != 3 || len(b.Runs) != 3 {
		t.Fatalf("%d measured runs of %d, want 3 of 3", got, len(b.Runs))
	}
	if len(b.Profiles) != 1 {
		t.Fatalf("%d profiles, want 1", len(b.Profiles))
	}
	p := b.Profiles[0]
	if p.Unavailable != "" {
		t.Fatalf("profile unavailable: %s", p.Unavailable)
	}
	if p.Run == nil || p.Run.Status != result.StatusOK || p.Ops != 2000000 {
		t.Errorf("profiled run %+v, ops %v; want ok with 2,000,000 ops", p.Run, p.Ops)
	}
	if p.Samples <= 0 || p.CutOff != 0 || p.SamplesEstimated {
		t.Errorf("samples %d, cut-off %v, estimated %v; want counted samples of a whole table", p.Samples, p.CutOff, p.SamplesEstimated)
	}
	if p.Event == "" {
		t.Error("no event recorded")
	}
	var kernel []string
	for _, s := range p.Symbols {
		if s.Kernel && len(kernel) < 5 {
			kernel = append(kernel, s.Symbol)
		}
	}
	// The entry, or the getppid handler where a hypervisor's entry code
	// takes the entry's share (a PVM guest: pvm_irq_enable on top);
	// getppid's own work is __task_pid_nr_ns.
	entry := false
	for _, s := range kernel {
		entry = entry || s == "do_syscall_64" || strings.HasPrefix(s, "entry_SYSCALL_64") || s == "x64_sys_call" ||
			strings.HasSuffix(s, "sys_getppid") || s == "__task_pid_nr_ns"
	}
	if !entry {
		t.Errorf("top kernel symbols %v hold no syscall entry (do_syscall_64, entry_SYSCALL_64*, x64_sys_call) nor getppid's handler or work", kernel)
	}
}

// TestProfileMessagingCallGraph records the messaging workload with call
// stacks: its workers are forked after the ready handshake, so their
// socket reads and writes show only if perf followed the child's task
// tree.
func TestProfileMessagingCallGraph(t *testing.T) {
	needPerf(t, Options{CallGraph: true})
	set := measure(t, Options{CallGraph: true}, 1, 1, "messaging:groups=1,loops=200")
	p := set.Benchmarks[0].Profiles[0]
	if p.Unavailable != "" {
		t.Fatalf("profile unavailable: %s", p.Unavailable)
	}
	if !p.CallGraph || len(p.Stacks) == 0 {
		t.Fatalf("call graph %v, %d stacks; want stacks", p.CallGraph, len(p.Stacks))
	}
	socket := false
	for _, s := range p.Symbols {
		socket = socket || s.Kernel && strings.HasPrefix(s.Symbol, "unix_stream_")
	}
	if !socket {
		t.Error("no unix_stream_* kernel symbol: the forked workers were not sampled")
	}
	if _, err := Pprof(&p); err != nil {
		t.Error(err)
	}
}

// TestProfileUnavailable: without perf, the measured runs happen and the
// profile says why there is none.
func TestProfileUnavailable(t *testing.T) {
	set := measure(t, Options{Perf: "/nonexistent/perf"}, 2, 1, "syscall:calls=10000")
	b := set.Benchmarks[0]
	if len(b.Measured()) != 2 {
		t.Errorf("%d measured runs, want 2", len(b.Measured()))
	}
	if len(b.Profiles) != 1 || !strings.Contains(b.Profiles[0].Unavailable, "perf not found") {
		t.Errorf("profiles %+v, want one saying perf was not found", b.Profiles)
	}
}
