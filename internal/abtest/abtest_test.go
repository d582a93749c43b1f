package abtest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/abtest"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestMain makes the test binary the measured child runner re-executes.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// kickKnob only matters when a grace period stalls, so flipping it for a
// few runs disturbs no other test's measurement.
const kickKnob = "/sys/module/rcutree/parameters/rcu_kick_kthreads"

// liveKick skips unless the knob can be written here, and returns its
// value and the other one.
func liveKick(t *testing.T) (now, other string) {
	t.Helper()
	testenv.NeedRoot(t, "writes "+kickKnob)
	b, err := os.ReadFile(kickKnob)
	if err != nil {
		testenv.Skipf(t, "no %s here: %v", kickKnob, err)
	}
	now = strings.TrimSpace(string(b))
	other = "Y"
	if now == "Y" {
		other = "N"
	}
	t.Cleanup(func() {
		if b, _ := os.ReadFile(kickKnob); strings.TrimSpace(string(b)) != now {
			t.Errorf("%s is %q after the test, was %s; writing it back", kickKnob, b, now)
			os.WriteFile(kickKnob, []byte(now+"\n"), 0)
		}
	})
	return now, other
}

// session makes the options of a small real session: syscall runs under
// the variants given (NAME:KNOB=V), the journal in a directory of the
// test's own, returned.
func session(t *testing.T, j *job.Job, variants ...string) (abtest.Options, string) {
	t.Helper()
	for _, s := range variants {
		v, err := job.ParseVariant(s)
		if err != nil {
			t.Fatal(err)
		}
		j.Variants = append(j.Variants, v)
	}
	j.Workloads = []job.Workload{{Name: "syscall", Params: map[string]string{"calls": "2000"}, Where: "test"}}
	if j.Order == "" {
		j.Order = "interleaved"
	}
	if j.Labels == nil {
		j.Labels = map[string]string{}
	}
	plan, err := abtest.NewPlan(j)
	if err != nil {
		t.Fatal(err)
	}
	journal := t.TempDir()
	return abtest.Options{
		Job:         j,
		Plan:        plan,
		Runner:      &runner.Options{Repeat: j.Repeat, Warmup: j.Warmup, Version: "test", Labels: map[string]string{}},
		Knobs:       knob.Options{JournalDir: journal},
		Fingerprint: func() *sysinfo.Fingerprint { return runner.Fingerprint("test") },
	}, journal
}

func journals(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	return m
}

// TestRunVariants runs two variants of a live knob, without cobra: the
// cells alternate run by run, each set carries its knob in labels, runs
// and fingerprint, until-conclusive stays within --max-runs, the
// comparison names both, and the knob and journal are as they were.
func TestRunVariants(t *testing.T) {
	now, other := liveKick(t)
	j := &job.Job{Repeat: 2, Warmup: 1, UntilConclusive: true, MaxRuns: 3}
	o, journal := session(t, j, "a:"+kickKnob+"="+other, "b:"+kickKnob+"="+now)
	o.Output = filepath.Join(t.TempDir(), "kick")
	records := 0
	o.Record = func(*result.Set) error { records++; return nil }
	res, err := abtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 2 || !res.Knobs || res.RestoreErr != nil {
		t.Fatalf("%d sets, knobs %v, restore %v", len(res.Sets), res.Knobs, res.RestoreErr)
	}
	key := "rcutree.rcu_kick_kthreads"
	for i, want := range []string{other, now} {
		s := res.Sets[i]
		if s.Labels["variant"] != []string{"a", "b"}[i] || s.Labels[key] != want || !s.Complete || s.Env == nil {
			t.Errorf("set %d: labels %v, complete %v", i, s.Labels, s.Complete)
		}
		b := s.Benchmarks[0]
		if n := runner.Attempted(b); n < 2 || n > 3 {
			t.Errorf("set %d: %d attempted runs, want -r 2 to --max-runs 3", i, n)
		}
		for _, r := range b.Runs {
			if r.Status != result.StatusOK || r.Info["knob."+key] != want {
				t.Errorf("set %d run %d: %s %s, knob %q", i, r.Index, r.Status, r.Reason, r.Info["knob."+key])
			}
		}
		saved, err := result.Load(res.Paths[i])
		if err != nil || len(saved.Benchmarks[0].Runs) != len(b.Runs) {
			t.Errorf("set %d saved in %s: %v", i, res.Paths[i], err)
		}
	}
	if c := res.Compare; c == nil || strings.Join(c.Names, " ") != "a b" {
		t.Errorf("comparison %+v, want a against b", res.Compare)
	}
	if len(res.Verdicts) != 1 {
		t.Errorf("verdicts %v, want one: b against a on syscall", res.Verdicts)
	}
	if records < 2*len(res.Sets[0].Benchmarks[0].Runs) {
		t.Errorf("%d records, want at least one per run", records)
	}
	if js := journals(t, journal); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}
}

// TestRunOneCell: a job of one cell (--set) sets its knob once for the
// session, as kdelta run does, writes the one file it was given, and
// says its tuning warnings as they arise and in the result.
func TestRunOneCell(t *testing.T) {
	_, other := liveKick(t)
	st, err := knob.Parse(kickKnob + "=" + other)
	if err != nil {
		t.Fatal(err)
	}
	o, journal := session(t, &job.Job{Repeat: 2, Set: []knob.Setting{st}})
	o.Output = filepath.Join(t.TempDir(), "one.json")
	var said []string
	o.Warn = func(w string) { said = append(said, w) }
	res, err := abtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 1 || res.Paths[0] != o.Output || res.Compare != nil {
		t.Fatalf("one cell: %d sets, paths %v, comparison %v", len(res.Sets), res.Paths, res.Compare)
	}
	s := res.Sets[0]
	if s.Labels["rcutree.rcu_kick_kthreads"] != other || len(s.Benchmarks[0].Measured()) != 2 {
		t.Errorf("labels %v, %d measured runs", s.Labels, len(s.Benchmarks[0].Measured()))
	}
	if strings.Join(said, "\n") != strings.Join(res.Warnings, "\n") {
		t.Errorf("warnings said %q, returned %q", said, res.Warnings)
	}
	if _, err := result.Load(o.Output); err != nil {
		t.Error(err)
	}
	if js := journals(t, journal); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}
}

// TestRunInterrupted: a session cancelled before it starts keeps its
// sets, incomplete, says it was interrupted, and puts the knob back.
func TestRunInterrupted(t *testing.T) {
	now, other := liveKick(t)
	o, journal := session(t, &job.Job{Repeat: 3}, "a:"+kickKnob+"="+other, "b:"+kickKnob+"="+now)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := abtest.Run(ctx, o)
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("error %v, want %v", err, runner.ErrInterrupted)
	}
	if res == nil || len(res.Sets) != 2 || res.Sets[0].Complete || res.RestoreErr != nil || res.Compare != nil {
		t.Fatalf("result %+v", res)
	}
	if js := journals(t, journal); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}
}

// TestNewPlan: the checks that need no machine.
func TestNewPlan(t *testing.T) {
	if _, err := abtest.NewPlan(&job.Job{}); !errors.Is(err, abtest.ErrNoWorkloads) {
		t.Errorf("no workloads: %v", err)
	}
	booted := &job.Job{File: "j.toml", Variants: []job.Variant{{Name: "a", Kernel: "bzImage"}}}
	if _, err := abtest.NewPlan(booted); err == nil || !strings.Contains(err.Error(), "run it with kdelta vm -f j.toml") {
		t.Errorf("booted variants: %v", err)
	}
	axis, err := job.ParseAxis("calls=1000,2000")
	if err != nil {
		t.Fatal(err)
	}
	j := &job.Job{Workloads: []job.Workload{{Name: "syscall", Where: "test"}}, Matrix: []job.Axis{axis}}
	p, err := abtest.NewPlan(j)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Specs) != 2 || len(p.Cells) != 1 {
		t.Errorf("a parameter axis: %d specs, %d cells; want 2 and 1", len(p.Specs), len(p.Cells))
	}
}

// TestRegressions lists what regressed, in the comparison and at each
// knob point.
func TestRegressions(t *testing.T) {
	res := &abtest.Result{Verdicts: []job.Verdict{{Cell: "b", Baseline: "a", Benchmark: "syscall", Metric: "ns/call"}}}
	if r := report.Regressions(res); len(r) != 0 {
		t.Errorf("no regression: %v", r)
	}
	res.Verdicts[0].Comparison.Verdict = "regressed"
	if r := report.Regressions(res); len(r) != 1 || !strings.HasPrefix(r[0], "b vs a: syscall ns/call") {
		t.Errorf("regressions %q", r)
	}
	// The comparison's come first, each named by its variant.
	res.Compare = &compare.Result{Names: []string{"a", "b"}, Rows: []compare.Row{
		{Workload: "syscall", Metric: result.Metric{Name: "ns/call"}, Vs: []stats.Comparison{{Verdict: stats.Regressed}}}}}
	if r := report.Regressions(res); len(r) != 2 || r[0] != "b syscall ns/call" || !strings.HasPrefix(r[1], "b vs a:") {
		t.Errorf("regressions %q", r)
	}
}

// TestReport: what the command shows of a session. The sweep is there
// with a matrix only, and how until-conclusive ended only for several
// cells, with the most measured runs of the baseline's benchmarks.
func TestReport(t *testing.T) {
	runs := func(n int) *result.Benchmark {
		b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "1000"}, Metrics: []result.Metric{{Name: "ns/call"}}}
		for i := range n {
			b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"ns/call": 100}})
		}
		return b
	}
	cells := []job.Cell{{Name: "a"}, {Name: "b"}}
	sets := []*result.Set{{Benchmarks: []*result.Benchmark{runs(3), runs(5)}}, {Benchmarks: []*result.Benchmark{runs(5), runs(5)}}}
	res := &abtest.Result{Cells: cells, Sets: sets, Paths: []string{"p-a.json", ""}, Pending: []job.Verdict{{Cell: "b", Baseline: "a"}}}
	j := &job.Job{UntilConclusive: true, MaxRuns: 8}
	r := report.SessionOf(res, abtest.Options{Job: j})
	if strings.Join(r.Names, ",") != "a,b" || r.Paths[0] != "p-a.json" || r.Sweeps != nil {
		t.Errorf("report %+v: want the cells' names and paths, no sweep", r)
	}
	if u := r.Until; u == nil || u.Runs != 5 || u.MaxRuns != 8 || len(u.Pending) != 1 {
		t.Errorf("until %+v: want 5 runs, --max-runs 8, one pending", u)
	}
	axis, err := job.ParseAxis("calls=1000")
	if err != nil {
		t.Fatal(err)
	}
	j.Matrix = []job.Axis{axis}
	one := &abtest.Result{Cells: cells[:1], Sets: sets[:1], Paths: []string{""}}
	if r := report.SessionOf(one, abtest.Options{Job: j}); r.Sweeps == nil || r.Until != nil {
		t.Errorf("one cell with a matrix: sweeps %v, until %+v; want a sweep and no until", r.Sweeps, r.Until)
	}
}

// fakeTracefs copies counter's plain-file tracefs tree, with the tracers
// given.
func fakeTracefs(t *testing.T, tracers string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tracing")
	if err := os.CopyFS(dir, os.DirFS("../counter/testdata/tracefs")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "available_tracers"), []byte(tracers+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunFuncLatency: a job with funclatency gives every benchmark the
// function's metrics and every run its window and its record, on a
// plain-file tracefs (the guest tests time real calls); the tracer's files
// are put back and the journal removed at the end. A kernel without the
// tracer refuses the session before any run, in one line.
func TestRunFuncLatency(t *testing.T) {
	dir := fakeTracefs(t, "function_graph nop")
	o, journal := session(t, &job.Job{Repeat: 2, FuncLatency: []string{"synchronize_rcu"}})
	o.Tracefs = dir
	res, err := abtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b := res.Sets[0].Benchmarks[0]
	if !slices.ContainsFunc(b.Metrics, func(m result.Metric) bool { return m.Name == "synchronize_rcu.p50" && m.Unit == "us" }) {
		t.Errorf("metrics %+v lack synchronize_rcu.p50", b.Metrics)
	}
	for _, r := range b.Measured() {
		if len(r.Functions) != 1 || r.Functions[0].Name != "synchronize_rcu" || r.Values["synchronize_rcu.calls"] != 0 || r.Info["funclatency"] == "" {
			t.Errorf("run %d: functions %+v, values %v, info %q", r.Index, r.Functions, r.Values, r.Info["funclatency"])
		}
	}
	for file, want := range map[string]string{"current_tracer": "nop", "tracing_on": "1", "buffer_size_kb": "1408", "set_ftrace_filter": "", "options/funcgraph-tail": "0"} {
		if got, _ := os.ReadFile(filepath.Join(dir, file)); strings.TrimSpace(string(got)) != want {
			t.Errorf("after the session %s = %q, want %q", file, got, want)
		}
	}
	if js := journals(t, journal); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}

	o, _ = session(t, &job.Job{Repeat: 2, FuncLatency: []string{"synchronize_rcu"}})
	o.Tracefs = fakeTracefs(t, "function nop")
	res, err = abtest.Run(context.Background(), o)
	if res != nil || err == nil || !strings.HasPrefix(err.Error(), "--funclatency: this kernel has no function_graph tracer") {
		t.Errorf("without the tracer: result %v, error %v", res, err)
	}
}
