package abtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/abtest"
	"github.com/kdelta/kdelta/internal/job"
)

// given is a Given that names these flags as given.
func given(flags ...string) func(string) bool {
	return func(f string) bool {
		for _, g := range flags {
			if g == f {
				return true
			}
		}
		return false
	}
}

// TestOverridesJob lays the command line over a job file: a flag counts
// when given, or when the file leaves its key unset; kdelta run (no
// --order) keeps the file's order and seed.
func TestOverridesJob(t *testing.T) {
	file := filepath.Join(t.TempDir(), "j.toml")
	src := "repeat = 3\nwarmup = 0\norder = \"blocks\"\nseed = 7\nmax_runs = 9\nlabels = { kernel = \"6.16\" }\nfunclatency = \"rcu_barrier\"\n\n" +
		"[[workload]]\nname = \"syscall\"\n\n[matrix]\ncalls = [1000, 2000]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The flags' defaults, as kdelta ab registers them.
	ab := abtest.Overrides{File: file, Repeat: 5, Warmup: 1, Timeout: 10 * time.Minute, Order: "interleaved", Seed: 1, MaxRuns: 20, FuncScope: "system"}
	tests := []struct {
		name string
		o    func(abtest.Overrides) abtest.Overrides
		want func(*job.Job) string // "" when j is right, else what is wrong
	}{
		{"file over defaults", func(o abtest.Overrides) abtest.Overrides { return o }, func(j *job.Job) string {
			if j.Repeat != 3 || j.Warmup != 0 || j.Order != "blocks" || j.Seed != 7 || j.MaxRuns != 9 || j.Timeout != 10*time.Minute {
				return "the file's repeat, warmup, order, seed, max_runs and the flag's timeout"
			}
			if strings.Join(j.FuncLatency, ",") != "rcu_barrier" || j.FuncScope != "system" {
				return "the file's funclatency, the flag's default scope"
			}
			return ""
		}},
		{"flags given over file", func(o abtest.Overrides) abtest.Overrides {
			o.Repeat, o.Order, o.Seed, o.MaxRuns = 4, "random", 2, 12
			o.FuncLatency, o.FuncScope = "synchronize_rcu,rcu_barrier", "tasks"
			o.Given = given("repeat", "order", "seed", "max-runs", "funclatency", "funclatency-scope")
			return o
		}, func(j *job.Job) string {
			if j.Repeat != 4 || j.Order != "random" || j.Seed != 2 || j.MaxRuns != 12 || j.Warmup != 0 {
				return "the flags given, the file's warmup"
			}
			if strings.Join(j.FuncLatency, ",") != "synchronize_rcu,rcu_barrier" || j.FuncScope != "tasks" {
				return "--funclatency and --funclatency-scope over the file's"
			}
			return ""
		}},
		{"kdelta run keeps the file's order", func(o abtest.Overrides) abtest.Overrides {
			o.Order, o.Seed = "", 0
			return o
		}, func(j *job.Job) string {
			if j.Order != "blocks" || j.Seed != 7 {
				return "the file's order and seed"
			}
			return ""
		}},
		{"labels, workloads and an axis replaced", func(o abtest.Overrides) abtest.Overrides {
			o.Labels = []string{"preempt=lazy", "kernel=6.17"}
			o.Workloads = []string{"pipe:loops=10"}
			o.Matrix = []string{"calls=5000"}
			return o
		}, func(j *job.Job) string {
			if j.Labels["kernel"] != "6.17" || j.Labels["preempt"] != "lazy" {
				return "--label over the file's labels"
			}
			if len(j.Workloads) != 1 || j.Workloads[0].Name != "pipe" || j.Workloads[0].Where != "pipe:loops=10" {
				return "the command line's workload only"
			}
			if len(j.Matrix) != 1 || strings.Join(j.Matrix[0].Values, ",") != "5000" {
				return "--matrix calls replacing the file's axis"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := tt.o(ab).Job()
			if err != nil {
				t.Fatal(err)
			}
			if what := tt.want(j); what != "" {
				t.Errorf("want %s; got %+v", what, j)
			}
		})
	}
}

// TestOverridesErrors: each names the flag.
func TestOverridesErrors(t *testing.T) {
	ok := abtest.Overrides{Repeat: 5, Warmup: 1, Order: "interleaved", MaxRuns: 20, Workloads: []string{"syscall"}}
	tests := []struct {
		o    func(*abtest.Overrides)
		want string
	}{
		{func(o *abtest.Overrides) { o.Repeat = 0 }, "-r/--repeat: must be at least 1, got 0"},
		{func(o *abtest.Overrides) { o.Warmup = -1 }, "--warmup: must not be negative, got -1"},
		{func(o *abtest.Overrides) { o.Labels = []string{"kernel"} }, `--label: "kernel" is not key=value`},
		{func(o *abtest.Overrides) { o.Order = "shuffled" }, `--order: unknown order "shuffled" (one of interleaved, random, blocks)`},
		{func(o *abtest.Overrides) { o.UntilConclusive, o.MaxRuns = true, 3 }, "--max-runs: 3 is fewer than -r 5"},
		{func(o *abtest.Overrides) { o.Set = []string{"smt"} }, "--set: "},
		{func(o *abtest.Overrides) { o.Variants = []string{"a:", "a:smt=on"} }, "--variant: a given twice"},
		{func(o *abtest.Overrides) { o.Matrix = []string{"calls"} }, "--matrix: "},
		{func(o *abtest.Overrides) {
			o.Variants, o.Matrix = []string{"a:smt=on", "b:smt=off"}, []string{"smt=on,off"}
		}, "--matrix smt: variant a sets the same knob"},
		{func(o *abtest.Overrides) { o.Workloads = []string{"nosuch"} }, "nosuch"},
		{func(o *abtest.Overrides) { o.FuncLatency = "sync*" }, `--funclatency: "sync*" is not a kernel function name`},
		{func(o *abtest.Overrides) { o.FuncLatency, o.FuncScope = "f", "cpus" }, `--funclatency-scope: unknown scope "cpus" (system or tasks)`},
		{func(o *abtest.Overrides) { o.FuncScope = "tasks" }, "--funclatency-scope: tasks needs --funclatency FUNC"},
		{func(o *abtest.Overrides) { o.File = filepath.Join(t.TempDir(), "none.toml") }, "none.toml"},
	}
	for _, tt := range tests {
		o := ok
		tt.o(&o)
		if _, err := o.Job(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", o, err, tt.want)
		}
	}
}

// TestOverridesNoFile: without a job file the flags are the job.
func TestOverridesNoFile(t *testing.T) {
	o := abtest.Overrides{Repeat: 5, Warmup: 1, CPUs: "1", Shield: "1", Quick: true, Workloads: []string{"syscall:calls=10"}}
	j, err := o.Job()
	if err != nil {
		t.Fatal(err)
	}
	if j.Repeat != 5 || j.Warmup != 1 || j.CPUs != "1" || j.Shield != "1" || j.Order != "interleaved" || j.Labels == nil {
		t.Errorf("job %+v: want the flags, the interleaved order and labels to add to", j)
	}
	last := j.Workloads[len(j.Workloads)-1]
	if len(j.Workloads) < 2 || j.Workloads[0].Where != "--quick" || last.Where != "syscall:calls=10" || last.Params["calls"] != "10" {
		t.Errorf("workloads %+v: want the quick suite, then syscall:calls=10", j.Workloads)
	}
}
