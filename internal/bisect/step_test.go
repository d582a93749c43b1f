package bisect

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
)

// stepOptions are bisect-run's defaults against good.
// Its runs are judged as independent (--session-noise 0): the steps'
// scheduling is what the tests of it test; TestJudgeSessionNoise judges
// across sessions.
func stepOptions(good *result.Set) StepOptions {
	zero := 0.0
	return StepOptions{
		Options: Options{Good: good, GoodRef: "good.json", Compare: compare.Options{Stats: stats.Options{Alpha: 0.05, Threshold: 0.05}, SessionNoise: &zero}},
		Repeat:  5, MaxRuns: 20, Warmup: 1,
	}
}

// TestStepCheck checks the errors of a step's options, each naming its
// flag, before any result set is read.
func TestStepCheck(t *testing.T) {
	tests := []struct {
		edit func(*StepOptions)
		want string
	}{
		{func(*StepOptions) {}, ""},
		{func(o *StepOptions) { o.Compare.Stats.Alpha = 2 }, "--alpha: "},
		{func(o *StepOptions) { o.Repeat = 0 }, "-r/--repeat: must be at least 1, got 0"},
		{func(o *StepOptions) { o.MaxRuns = 4 }, "--max-runs: 4 is fewer than -r 5"},
		{func(o *StepOptions) { o.Warmup = -1 }, "--warmup: must not be negative, got -1"},
	}
	for _, tt := range tests {
		o := stepOptions(nil)
		tt.edit(&o)
		err := o.Check()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("Check: %v, want %q", err, tt.want)
		}
	}
}

// TestNewStep checks a step's workloads (named, else the good set's),
// checked against the good set, and the labels it adds.
func TestNewStep(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	good := set(bench(sp, 100, 101, 99, 100, 100))
	o := stepOptions(good)
	st, err := NewStep(o)
	if err != nil || len(st.Specs()) != 1 || st.Specs()[0].Workload.Name() != "syscall" {
		t.Fatalf("NewStep: %v, %v", st, err)
	}
	labels := map[string]string{}
	st.Label(labels)
	if len(labels) != 1 || labels["bisect.good"] != "good.json" {
		t.Errorf("labels without a bad set: %v", labels)
	}
	o.Bad, o.BadRef = set(bench(sp, 200, 201, 199, 200, 200)), "bad.json"
	st, _ = NewStep(o)
	st.Label(labels)
	if labels["bisect.bad"] != "bad.json" {
		t.Errorf("labels with a bad set: %v", labels)
	}
	o.Workloads = []string{"pipe"}
	if _, err := NewStep(o); err == nil || !strings.Contains(err.Error(), "--good good.json: no benchmark matches pipe:") {
		t.Errorf("NewStep of a workload good lacks: %v", err)
	}
}

// steps is a runner.Executor that brings the runs of a list of values,
// one per run, in order, of one benchmark.
type steps struct {
	sets   []*result.Set
	values []float64
	asked  []int
}

func (x *steps) Sets() []*result.Set { return x.sets }

func (x *steps) Run(_ context.Context, b runner.Batch) error {
	n := b.Repeat
	if !b.First() {
		n = b.Runs[0][0]
	}
	x.asked = append(x.asked, n)
	bm := x.sets[0].Benchmarks[0]
	for range n {
		v := x.values[len(bm.Runs)%len(x.values)]
		bm.Runs = append(bm.Runs, &result.Run{Index: len(bm.Runs), Status: result.StatusOK,
			Values: map[string]float64{"ns/call": v, "calls/s": 1e9 / v}})
	}
	return nil
}

// TestStepSession schedules a step's runs as bisect-run does and checks
// what it concludes: a commit like good is good after the first batch; a
// commit whose runs cannot be told from the band gets batches of Repeat
// up to MaxRuns and is skipped; the outcome is recorded in the set.
func TestStepSession(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	good := set(bench(sp, 100, 101, 99, 100.5, 99.5))
	tests := []struct {
		name     string
		values   []float64
		asked    []int
		decision string
		line     string
	}{
		{"like good", []float64{100, 101, 99, 100.5, 99.5}, []int{5}, Good, "good: syscall " + result.FormatParams(sp.Values) + " ns/call: "},
		{"cannot tell", []float64{90, 120, 100, 130, 95}, []int{5, 5, 5, 5}, Skip, "skip (cannot tell after --max-runs 20): "},
		{"far slower", []float64{150, 151, 149, 150.5, 149.5}, []int{5}, Bad, "bad: syscall "},
	}
	for _, tt := range tests {
		st, err := NewStep(stepOptions(good))
		if err != nil {
			t.Fatal(err)
		}
		s := set(bench(sp))
		s.Labels = map[string]string{"kernel": "6.1"}
		x := &steps{sets: []*result.Set{s}, values: tt.values}
		if err := runner.Schedule(context.Background(), x, 0, 5, st.Until()); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.asked, tt.asked) {
			t.Errorf("%s: batches %v, want %v", tt.name, x.asked, tt.asked)
		}
		out := st.Conclude(s)
		if out.Decision != tt.decision || len(out.Evidence) != 1 || !strings.HasPrefix(LineOf(out.Evidence[0], out.MaxRuns), tt.line) {
			t.Errorf("%s: %s, %+v; want %s, a line starting %q", tt.name, out.Decision, out.Evidence, tt.decision, tt.line)
		}
		if s.Labels["bisect"] != tt.decision {
			t.Errorf("%s: set labels %v: the decision is not recorded", tt.name, s.Labels)
		}
	}
}
