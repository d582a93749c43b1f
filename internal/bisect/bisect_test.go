package bisect

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/workload"
)

// spec parses a workload spec or fails the test.
func spec(t *testing.T, s string) workload.Spec {
	t.Helper()
	sp, err := workload.ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// bench is a benchmark of sp with one measured run per value of ns/call,
// and calls/s to match.
func bench(sp workload.Spec, nsPerCall ...float64) *result.Benchmark {
	b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values), Metrics: workload.MetricsOf(sp)}
	for i, v := range nsPerCall {
		b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK,
			Values: map[string]float64{"ns/call": v, "calls/s": 1e9 / v}})
	}
	return b
}

func set(bs ...*result.Benchmark) *result.Set { return &result.Set{Benchmarks: bs} }

// scaled is xs times f.
func scaled(f float64, xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

// TestJudge drives the judge as bisect-run does, without a command line:
// options and result sets in, evidence and a decision out.
func TestJudge(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	level := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}
	tests := []struct {
		name     string
		good     []float64
		bad      []float64 // nil: no bad set
		measured []float64
		metric   string
		want     string // the decision
		why      string // a substring of the evidence line
		warning  string // a substring of a warning, if any
	}{
		{"like good", level, nil, scaled(1.01, level), "", Good, "within ±5.0% of good", ""},
		{"faster than good", level, nil, scaled(0.5, level), "", Good, "improved on good", ""},
		{"slower than good", level, nil, scaled(2, level), "", Bad, "regressed from good beyond ±5.0%", ""},
		{"slower, judged on the rate", level, nil, scaled(2, level), "calls/s", Bad, "calls/s: -50.0%", ""},
		{"faster, judged on the rate", level, nil, scaled(0.5, level), "calls/s", Good, "improved on good", ""},
		{"too few runs", level, nil, scaled(2, level[:1]), "", "", "inconclusive (need ≈9 runs) against good", ""},
		{"near good, with bad", level, scaled(2, level), scaled(1.05, level), "", Good, "closer to good: the interval is on good's side of the midpoint +41.4% of the step to bad (+100%)", ""},
		{"near bad, with bad", level, scaled(2, level), scaled(1.9, level), "", Bad, "closer to bad", ""},
		{"near bad on the rate, with bad", level, scaled(2, level), scaled(1.9, level), "calls/s", Bad, "closer to bad: the interval is on bad's side of the midpoint -29.3% of the step to bad (-50.0%)", ""},
		{"bad no worse than good", level, level, level, "", Good, "within ±5.0% of good", "bad is not worse than good (+0.00% [-0.70%, +0.70%], ~): good alone decides"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The decisions over runs judged as independent
			// (--session-noise 0): TestJudgeSessionNoise judges
			// across sessions.
			zero := 0.0
			opt := Options{Good: set(bench(sp, tt.good...)), GoodRef: "good.json", Metric: tt.metric,
				Compare: compare.Options{Stats: stats.Options{Threshold: 0.05}, SessionNoise: &zero}}
			if tt.bad != nil {
				opt.Bad, opt.BadRef = set(bench(sp, tt.bad...)), "bad.json"
			}
			j := New(opt)
			if err := j.Check([]workload.Spec{sp}); err != nil {
				t.Fatal(err)
			}
			evs := j.Evidence(set(bench(sp, tt.measured...)))
			if len(evs) != 1 {
				t.Fatalf("%d evidences, want 1", len(evs))
			}
			e := evs[0]
			line := LineOf(e, 20)
			if e.Decision != tt.want || !strings.Contains(line, tt.why) {
				t.Errorf("decision %q, line %q; want %q, containing %q", e.Decision, line, tt.want, tt.why)
			}
			if want := Decision(evs); want != tt.want && !(tt.want == "" && want == Skip) {
				t.Errorf("Decision %q for evidence %q", want, e.Decision)
			}
			// The step and good are two sessions, judged as
			// independent runs as the option says: the line says so.
			if e.VsGood.A.N > 0 && !strings.Contains(line, "runs judged as independent (--session-noise 0)") {
				t.Errorf("line %q does not say its runs are judged as independent", line)
			}
			others := WarningsOf(j.Warnings())
			warns := strings.Join(others, "\n")
			if tt.warning != "" && !strings.Contains(warns, tt.warning) || tt.warning == "" && warns != "" {
				t.Errorf("warnings %q, want %q", warns, tt.warning)
			}
		})
	}
}

// TestJudgeSessionNoise: a step and the good set, one session each, are
// compared across sessions: an 8% slowdown that the runs as independent
// (--session-noise 0) call bad beyond the ±5% band is, under the host's
// session noise of about ±10% or the prior of ±10%, no longer a
// decision, and the comparison's design carries the noise; a doubling
// still is bad.
func TestJudgeSessionNoise(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	level := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}
	var aa [][]float64
	for _, f := range []float64{1, 1.12, 0.9, 1.05, 0.93, 1.1} {
		aa = append(aa, scaled(f, level))
	}
	noise, err := stats.EstimateSessionNoise(aa)
	if err != nil {
		t.Fatal(err)
	}
	known := func(*result.Set, *result.Benchmark, string) stats.SessionNoise { return noise }
	zero := 0.0
	for _, tt := range []struct {
		factor float64
		noise  bool
		given  *float64
		want   string
	}{
		{1.08, false, &zero, Bad},
		{1.08, false, nil, ""},
		{2, false, nil, Bad},
		{1.08, true, nil, ""},
		{2, true, nil, Bad},
	} {
		opt := Options{Good: set(bench(sp, level...)), GoodRef: "good.json",
			Compare: compare.Options{Stats: stats.Options{Threshold: 0.05}, SessionNoise: tt.given}}
		if tt.noise {
			opt.Noise = known
		}
		// Uncalibrated, the prior stands in and the line names it.
		if line := ""; !tt.noise && tt.given == nil {
			e := New(opt).Evidence(set(bench(sp, scaled(tt.factor, level)...)))[0]
			if line = LineOf(e, 20); !strings.Contains(line, "session noise ±10.0% assumed for a machine of unknown kind") {
				t.Errorf("×%g uncalibrated: line %q does not name the prior", tt.factor, line)
			}
		}
		j := New(opt)
		e := j.Evidence(set(bench(sp, scaled(tt.factor, level)...)))[0]
		if e.Decision != tt.want {
			t.Errorf("×%g, noise known %v: decision %q (%s), want %q", tt.factor, tt.noise, e.Decision, LineOf(e, 20), tt.want)
		}
		if d := e.VsGood.Design; tt.noise && (d.NoiseUnknown || !d.Noise.Known()) {
			t.Errorf("×%g: the comparison's design %+v does not carry the noise", tt.factor, d)
		}
		if tt.noise && len(j.Warnings()) > 0 {
			t.Errorf("×%g: warnings %q with the noise known", tt.factor, WarningsOf(j.Warnings()))
		}
		t.Logf("×%g, noise known %v (%+v): %s", tt.factor, tt.noise, noise, LineOf(e, 20))
	}
}

// TestJudgeCannotTell checks the evidence of benchmarks that were not
// compared, and how their lines say so.
func TestJudgeCannotTell(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	good := set(bench(sp, 100, 101, 99, 100, 100))
	skipped := bench(sp)
	skipped.Skipped = "needs root"
	failed := bench(sp)
	failed.Runs = []*result.Run{{Status: result.StatusFailed, Reason: "exit status 1"}}
	tests := []struct {
		name string
		b    *result.Benchmark
		line string
	}{
		{"skipped", skipped, "skip (cannot tell): syscall " + result.FormatParams(sp.Values) + " ns/call: skipped: needs root (0 runs)"},
		{"failed", failed, "ns/call: no measured values: exit status 1 (0 runs)"},
		{"few runs, at --max-runs", bench(sp, 100, 200), "skip (cannot tell after --max-runs 2): "},
	}
	for _, tt := range tests {
		j := New(Options{Good: good, GoodRef: "good.json"})
		evs := j.Evidence(set(tt.b))
		if line := LineOf(evs[0], 2); evs[0].Decision != "" || !strings.Contains(line, tt.line) {
			t.Errorf("%s: decision %q, line %q; want none, containing %q", tt.name, evs[0].Decision, line, tt.line)
		}
		if d := Decision(evs); d != Skip {
			t.Errorf("%s: Decision %q, want skip", tt.name, d)
		}
	}
}

// TestDecision checks how the benchmarks' decisions make the commit's.
func TestDecision(t *testing.T) {
	ev := func(ds ...string) []Evidence {
		var evs []Evidence
		for _, d := range ds {
			evs = append(evs, Evidence{Decision: d})
		}
		return evs
	}
	tests := []struct {
		evs  []Evidence
		want string
	}{
		{ev(Good), Good},
		{ev(Good, Good), Good},
		{ev(Bad), Bad},
		{ev(Good, Bad), Bad},
		{ev(Good, ""), Skip},
		{ev("", Bad), Bad},
		{ev(""), Skip},
	}
	for _, tt := range tests {
		if got := Decision(tt.evs); got != tt.want {
			t.Errorf("Decision(%+v) = %q, want %q", tt.evs, got, tt.want)
		}
	}
}

// TestCounterpart checks bisect-run's pairing: compare.Pair loosened for
// a reference, with the note each fallback gives.
func TestCounterpart(t *testing.T) {
	a, b := spec(t, "syscall:calls=1000"), spec(t, "syscall:calls=2000")
	pipe := spec(t, "pipe")
	imported := &result.Benchmark{Workload: "stress-ng", Params: map[string]string{"stressor": "kill"}}
	cmd := spec(t, "command:cmd=stress-ng")
	tests := []struct {
		name     string
		b        *result.Benchmark
		measured int
		ref      *result.Set
		want     *result.Benchmark // nil: no match
		note     string
	}{
		{"same parameters", bench(a), 1, set(bench(b), bench(a)), nil, ""},
		{"parameters differ", bench(a), 1, set(bench(b)), nil, "(parameters differ)"},
		{"parameters differ, two measured", bench(a), 2, set(bench(b), bench(pipe)), nil, "(parameters differ)"},
		{"two of the workload in the reference", bench(pipe), 1, set(bench(a), bench(b)), nil, "no benchmark matches pipe:"},
		{"imported reference", bench(cmd), 1, set(imported), imported, "the only benchmark of the reference"},
		{"imported reference, two measured", bench(cmd), 2, set(imported), nil, "no benchmark matches command:"},
		{"another of kdelta's workloads", bench(pipe), 1, set(bench(a)), nil, "no benchmark matches pipe:"},
	}
	for _, tt := range tests {
		o, note, err := Counterpart(tt.b, tt.measured, tt.ref)
		switch {
		case strings.HasPrefix(tt.note, "no benchmark"):
			if err == nil || !strings.Contains(err.Error(), tt.note) {
				t.Errorf("%s: %v, %q, %v; want an error containing %q", tt.name, o, note, err, tt.note)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != nil && o != tt.want, tt.want == nil && o.Workload != tt.b.Workload:
			t.Errorf("%s: matched %s", tt.name, o.Key())
		case tt.note == "" && note != "", !strings.Contains(note, tt.note):
			t.Errorf("%s: note %q, want %q", tt.name, note, tt.note)
		}
	}
}

// TestCheck checks the errors bisect-run gives before anything runs.
func TestCheck(t *testing.T) {
	a, pipe := spec(t, "syscall:calls=1000"), spec(t, "pipe")
	good := set(bench(a, 100))
	tests := []struct {
		opt   Options
		specs []workload.Spec
		want  string
	}{
		{Options{Good: good, GoodRef: "g"}, []workload.Spec{a}, ""},
		{Options{Good: good, GoodRef: "g", Metric: "nosuch"}, []workload.Spec{a}, `--metric: workload syscall has no metric "nosuch" (it has ns/call, calls/s)`},
		{Options{Good: good, GoodRef: "g"}, []workload.Spec{pipe}, "--good g: no benchmark matches pipe:"},
		{Options{Good: good, GoodRef: "g", Bad: set(bench(pipe)), BadRef: "b"}, []workload.Spec{a}, "--bad b: no benchmark matches syscall:"},
	}
	for _, tt := range tests {
		err := New(tt.opt).Check(tt.specs)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Check: %v, want %q", err, tt.want)
		}
	}
}

// TestSpecs checks the workloads bisect-run measures: those named, else
// the good set's.
func TestSpecs(t *testing.T) {
	a := spec(t, "syscall:calls=1000")
	specs, err := Specs(nil, set(bench(a)), "g")
	if err != nil || len(specs) != 1 || specs[0].Workload.Name() != "syscall" || specs[0].Values["calls"] != "1000" {
		t.Errorf("from the good set: %v, %v", specs, err)
	}
	if specs, err := Specs([]string{"pipe"}, set(bench(a)), "g"); err != nil || len(specs) != 1 || specs[0].Workload.Name() != "pipe" {
		t.Errorf("named: %v, %v", specs, err)
	}
	for _, tt := range []struct {
		args []string
		good *result.Set
		want string
	}{
		{[]string{"nosuch"}, set(bench(a)), `--workload: unknown workload "nosuch"`},
		{nil, set(&result.Benchmark{Workload: "stress-ng"}), `--good g: workload "stress-ng" is not one kdelta runs`},
		{nil, set(), "--good g: no workloads in the set"},
	} {
		if _, err := Specs(tt.args, tt.good, "g"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Specs(%q): %v, want %q", tt.args, err, tt.want)
		}
	}
}
