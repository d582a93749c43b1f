package history

import (
	"context"
	"math"
	mrand "math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// elnSets are seed mail 000's ELN builds as stored kill results: 10 runs
// per build at CV 1% around the mail's bogo-ops/s, saved out of version
// order, with 6.16 measured in two sessions of 5 runs, and one set
// without a kernel label.
func elnSets() []*result.Set {
	bogo := result.Metric{Name: "bogo-ops/s", Unit: "bogo-ops/s", Better: result.Higher}
	mk := func(id string, day int, kernel string, runs int, centre float64, seed uint64) *result.Set {
		labels := map[string]string{"host": "p10"}
		if kernel != "" {
			labels["kernel"] = kernel
		}
		return synth{id: id, created: t0.Add(time.Duration(day) * 24 * time.Hour), labels: labels, workload: "kill",
			metric: bogo, runs: runs, warmups: 1, centre: centre, cv: 0.01, seed: seed}.set()
	}
	return []*result.Set{
		mk("s1", 0, "6.18", 10, 72552, 1),
		mk("s2", 1, "6.15-rc6", 10, 103207, 2),
		mk("s3", 2, "6.16", 5, 70281, 3),
		mk("s4", 3, "6.16", 5, 70281, 4),
		mk("s5", 4, "", 10, 50000, 5),
	}
}

func TestHistory(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	for _, s := range elnSets() {
		if err := st.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// A pipe workload with two parameter sets makes two series.
	lat := result.Metric{Name: "latency", Unit: "us", Better: result.Lower}
	for i, k := range []string{"6.15", "6.16"} {
		for j, mode := range []string{"process", "thread"} {
			s := synth{id: "p" + k + mode, created: t0.Add(time.Duration(i) * time.Hour), labels: map[string]string{"kernel": k},
				workload: "pipe", params: map[string]string{"mode": mode}, metric: lat, runs: 10,
				centre: 5 * float64(1+i+j), cv: 0.01, seed: uint64(10 + i*2 + j)}.set()
			if err := st.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}

	hs, err := Load(ctx, st, Query{By: "kernel", Workload: "kill"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 {
		t.Fatalf("%d series, want 1", len(hs))
	}
	h := hs[0]
	var labels []string
	var ns []int
	for _, p := range h.Points {
		labels = append(labels, p.Label)
		ns = append(ns, p.Summary.N)
	}
	if want := []string{"6.15-rc6", "6.16", "6.18"}; !slices.Equal(labels, want) {
		t.Errorf("points %v, want %v", labels, want)
	}
	if want := []int{10, 10, 10}; !slices.Equal(ns, want) {
		t.Errorf("runs per point %v, want %v (warm-ups left out, the two 6.16 sets pooled)", ns, want)
	}
	if !slices.Equal(h.Points[1].Sets, []string{"s3", "s4"}) {
		t.Errorf("6.16 sets %v", h.Points[1].Sets)
	}
	if h.Unlabelled != 1 {
		t.Errorf("Unlabelled %d, want 1", h.Unlabelled)
	}
	if !math.IsNaN(h.Points[0].Change) || math.Abs(h.Points[1].Change-(-0.319)) > 0.015 || math.Abs(h.Points[2].Change-0.032) > 0.015 {
		t.Errorf("changes %v %v %v, want NaN, ≈-31.9%%, ≈+3.2%%", h.Points[0].Change, h.Points[1].Change, h.Points[2].Change)
	}
	// One step, at 6.16, of about −32% (−30.8% against 6.16 and 6.18
	// pooled), and the +3.2% at 6.18 under the 5% minimum.
	if len(h.Steps) != 1 || h.Steps[0].Index != 1 || h.Points[1].Step == nil {
		t.Fatalf("steps %+v, want one at 6.16", h.Steps)
	}
	if c := h.Steps[0].Change; c > -0.28 || c < -0.35 || h.Steps[0].P >= 0.01 {
		t.Errorf("step %+v, want about -32%% with p < 0.01", h.Steps[0])
	}
	if h.StepVerdict(h.Steps[0]) != stats.Regressed || h.Metric.Name != "bogo-ops/s" {
		t.Errorf("metric %+v: a fall of bogo-ops/s is a regression", h.Metric)
	}

	// By time: one point per set, oldest first, the unlabelled one too.
	hs, err = Load(ctx, st, Query{By: ByTime, Workload: "kill"})
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	for _, p := range hs[0].Points {
		sets = append(sets, p.Sets...)
	}
	if want := []string{"s1", "s2", "s3", "s4", "s5"}; !slices.Equal(sets, want) {
		t.Errorf("by time: %v, want %v", sets, want)
	}
	if hs[0].Points[0].Label != "2026-07-01 12:00:00" {
		t.Errorf("by time label %q", hs[0].Points[0].Label)
	}

	// Label filters and parameters.
	hs, err = Load(ctx, st, Query{By: "kernel", Workload: "pipe"})
	if err != nil || len(hs) != 2 || hs[0].Key() != "pipe:mode=process" || hs[1].Key() != "pipe:mode=thread" {
		t.Fatalf("pipe series: %v %v", hs, err)
	}
	if len(hs[0].Points) != 2 || len(hs[0].Steps) != 1 || hs[0].StepVerdict(hs[0].Steps[0]) != stats.Regressed {
		t.Errorf("pipe process: %+v", hs[0])
	}
	hs, err = Load(ctx, st, Query{By: "kernel", Workload: "pipe", Params: map[string]string{"mode": "thread"}, Labels: []store.Label{{Name: "kernel", Value: "6.16"}}})
	if err != nil || len(hs) != 1 || len(hs[0].Points) != 1 || len(hs[0].Steps) != 0 {
		t.Errorf("filtered: %+v %v", hs, err)
	}
	if hs, err := Load(ctx, st, Query{By: "kernel", Workload: "nosuch"}); err != nil || len(hs) != 0 {
		t.Errorf("unknown workload: %v %v", hs, err)
	}
}

// TestStepVerdict checks the direction of a step against the one rule,
// Metric.Worse, with the case store.Regressed got wrong: an empty Better
// is lower is better, so a rise is the regression.
func TestStepVerdict(t *testing.T) {
	tests := []struct {
		better result.Better
		change float64
		want   stats.Verdict
	}{
		{result.Higher, -0.3, stats.Regressed},
		{result.Higher, +0.3, stats.Improved},
		{result.Lower, +0.3, stats.Regressed},
		{result.Lower, -0.3, stats.Improved},
		{"", +0.3, stats.Regressed},
		{"", -0.3, stats.Improved},
	}
	for _, tt := range tests {
		s := &Series{Metric: result.Metric{Name: "m", Better: tt.better}}
		if got := s.StepVerdict(stats.ChangePoint{Change: tt.change}); got != tt.want {
			t.Errorf("better %q, change %+.1f: %s, want %s", tt.better, tt.change, got, tt.want)
		}
	}
}

// newStore opens a new, empty SQLite store for a test. The store's own
// tests run its queries on PostgreSQL too; history only reads what they
// return.
func newStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "kdelta.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// synth describes a synthetic result set, as the store's tests make them.
type synth struct {
	id       string
	created  time.Time
	labels   map[string]string
	workload string
	params   map[string]string
	metric   result.Metric
	runs     int     // measured runs
	warmups  int     // warm-up runs before them
	centre   float64 // values are centre × (1 + cv·N(0,1))
	cv       float64
	seed     uint64
}

// set builds the synthetic set: every run with the metric and a second
// one, so that queries must pick the right metric.
func (s synth) set() *result.Set {
	rng := mrand.New(mrand.NewPCG(s.seed, 0x6b64656c7461))
	m := s.metric
	b := &result.Benchmark{
		Workload: s.workload,
		Params:   s.params,
		Metrics:  []result.Metric{m, {Name: "elapsed", Unit: "s", Better: result.Lower}},
	}
	start := s.created
	for i := 0; i < s.warmups+s.runs; i++ {
		v := s.centre * (1 + s.cv*rng.NormFloat64())
		idx, warm := i, i < s.warmups
		if !warm {
			idx = i - s.warmups
		}
		b.Runs = append(b.Runs, &result.Run{Index: idx, Warmup: warm, Start: start, Status: result.StatusOK, WallSec: 1,
			Values: map[string]float64{m.Name: v, "elapsed": 1e6 / math.Max(v, 1)}})
		start = start.Add(time.Second)
	}
	labels := map[string]string{}
	for k, v := range s.labels {
		labels[k] = v
	}
	return &result.Set{
		Schema: result.Schema, ID: s.id, Created: s.created, Tool: "kdelta test",
		Labels: labels, Benchmarks: []*result.Benchmark{b}, Complete: true,
	}
}

// t0 is the time of the first synthetic set.
var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// TestParseWorkloadRef checks --workload: a name alone, or with the
// parameters that pick one benchmark; a missing name or a part that is
// not key=value is refused naming it.
func TestParseWorkloadRef(t *testing.T) {
	name, params, err := ParseWorkloadRef("pipe:mode=thread,loops=10")
	if err != nil || name != "pipe" || len(params) != 2 || params["mode"] != "thread" || params["loops"] != "10" {
		t.Errorf("pipe:mode=thread,loops=10: %q %v %v", name, params, err)
	}
	if name, params, err := ParseWorkloadRef("perf-bench-sched-pipe"); err != nil || name != "perf-bench-sched-pipe" || params != nil {
		t.Errorf("a name alone: %q %v %v", name, params, err)
	}
	for in, want := range map[string]string{":mode=x": "names no workload", "pipe:mode": `"mode" in "pipe:mode" is not key=value`, "pipe:=1": `"=1"`} {
		if _, _, err := ParseWorkloadRef(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWorkloadRef(%q): %v, want %q", in, err, want)
		}
	}
}

// TestAcross checks the series made from sets in memory, as kdelta series
// makes them after its boots: one per benchmark, points in version order
// whatever order the sets come in, and a planted step found at its build.
func TestAcross(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	set := func(kernel string, centre float64) *result.Set {
		b := &result.Benchmark{Workload: "rcu", Metrics: []result.Metric{{Name: "mean", Unit: "ms", Better: result.Lower}}}
		for i := 0; i < 8; i++ {
			b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"mean": centre * (1 + 0.02*r.NormFloat64())}})
		}
		return &result.Set{ID: "id-" + kernel, Labels: map[string]string{"kernel": kernel}, Benchmarks: []*result.Benchmark{b}}
	}
	sets := []*result.Set{set("6.1.0-57-cloud-amd64", 0.01), set("6.1.0-55-cloud-amd64", 8), set("6.1.0-56-cloud-amd64", 8)}
	hs, err := Across(sets, "kernel", stats.ChangePointOptions{MinMagnitude: 0.05, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || len(hs[0].Points) != 3 {
		t.Fatalf("series %+v", hs)
	}
	var labels []string
	for _, p := range hs[0].Points {
		labels = append(labels, p.Label)
	}
	if want := []string{"6.1.0-55-cloud-amd64", "6.1.0-56-cloud-amd64", "6.1.0-57-cloud-amd64"}; !slices.Equal(labels, want) {
		t.Errorf("points %v, want %v", labels, want)
	}
	if len(hs[0].Steps) != 1 || hs[0].Steps[0].Index != 2 {
		t.Errorf("steps %+v, want one at 6.1.0-57", hs[0].Steps)
	}
}
