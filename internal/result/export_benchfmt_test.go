package result

import (
	"bytes"
	"maps"
	"math"
	"strings"
	"testing"
)

// roundTripSet is a set with what the Go benchmark format has to carry:
// parameters, two metrics a run, one a run lacks, a metric without a
// direction, warm-up and failed runs (not written), values that need
// every digit, and a label name that is not a configuration key as it is.
func roundTripSet() *Set {
	sys := &Benchmark{Workload: "syscall", Params: map[string]string{"syscall": "getppid", "calls": "1000"},
		Metrics: []Metric{{Name: "ns/call", Unit: "ns", Better: Lower}, {Name: "calls/s", Unit: "calls/s", Better: Higher}}}
	for i, v := range []float64{1.0 / 3, 169.76, 1e-9, 123456789.123} {
		sys.Runs = append(sys.Runs, &Run{Index: i, Warmup: i == 0, Status: StatusOK, Values: map[string]float64{"ns/call": v, "calls/s": 1e9 / v}})
	}
	sys.Runs = append(sys.Runs, &Run{Index: 4, Status: StatusFailed, Reason: "killed"})
	rcu := &Benchmark{Workload: "rcu", Params: map[string]string{"callers": "1"},
		Metrics: []Metric{{Name: "mean", Unit: "ms", Better: Lower}, {Name: "max", Unit: "ms", Better: Lower}, {Name: "elapsed", Unit: "s"}}}
	rcu.Runs = []*Run{
		{Index: 0, Status: StatusOK, Values: map[string]float64{"mean": 10.088, "max": 18.848, "elapsed": 2}},
		{Index: 1, Status: StatusOK, Values: map[string]float64{"mean": 8.695, "elapsed": 2.5}},
	}
	return &Set{Schema: Schema, ID: "x", Labels: map[string]string{"kernel": "6.16-eln150", "host": "p10", "Tuned Profile": "latency performance"},
		Benchmarks: []*Benchmark{sys, rcu}, Complete: true}
}

// TestBenchfmtRoundTrip writes a set in the Go benchmark format and reads
// it back with Import: the same benchmarks, values to the last bit, the
// directions, and the labels as configuration keys.
func TestBenchfmtRoundTrip(t *testing.T) {
	s := roundTripSet()
	var b bytes.Buffer
	if err := WriteBenchfmt(&b, []*Set{s}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := Import("set.txt", b.Bytes(), "benchfmt")
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(got.Warnings) > 0 {
		t.Errorf("warnings %q", got.Warnings)
	}
	delete(got.Labels, "source")
	if want := map[string]string{"kernel": "6.16-eln150", "host": "p10", "tuned-profile": "latency performance"}; !maps.Equal(got.Labels, want) {
		t.Errorf("labels %v, want %v", got.Labels, want)
	}
	if len(got.Benchmarks) != len(s.Benchmarks) {
		t.Fatalf("%d benchmarks, want %d:\n%s", len(got.Benchmarks), len(s.Benchmarks), b.String())
	}
	for i, want := range s.Benchmarks {
		g := got.Benchmarks[i]
		// Go benchmark names are capitalised: syscall comes back Syscall.
		if !strings.EqualFold(g.Workload, want.Workload) || !maps.Equal(g.Params, want.Params) {
			t.Errorf("benchmark %s, want %s", g.Key(), want.Key())
		}
		if len(g.Metrics) != len(want.Metrics) {
			t.Errorf("%s: metrics %+v, want %+v", want.Key(), g.Metrics, want.Metrics)
			continue
		}
		for j, m := range want.Metrics {
			gm := g.Metrics[j]
			better := m.Better
			if better == "" {
				better = Lower
			}
			if gm.Name != benchfmtUnit(m) || gm.Better != better {
				t.Errorf("%s: metric %+v, want %s, %s is better", want.Key(), gm, benchfmtUnit(m), better)
			}
			if gv, wv := g.Values(gm.Name), want.Values(m.Name); !equalBits(gv, wv) {
				t.Errorf("%s %s: values %v, want %v", want.Key(), m.Name, gv, wv)
			}
		}
	}
}

// TestBenchfmtSets writes two named sets into one file, as compare
// --format benchfmt does for benchstat -col set: read back, the name is a
// parameter, and a label the second set lacks is not carried over to it
// (benchfmt keeps a key until it is changed or deleted).
func TestBenchfmtSets(t *testing.T) {
	a, b := roundTripSet(), roundTripSet()
	a.Labels["patch"] = "v2"
	b.Labels["kernel"] = "6.17"
	for _, r := range b.Benchmarks[1].Runs {
		r.Values["mean"] *= 2
	}
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, []*Set{a, b}, []string{"A", "B"}); err != nil {
		t.Fatal(err)
	}
	got, err := Import("sets.txt", buf.Bytes(), "benchfmt")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got.Labels["host"] != "p10" || got.Labels["kernel"] != "" {
		t.Errorf("labels %v: host common, kernel differs", got.Labels)
	}
	found := 0
	for _, g := range got.Benchmarks {
		if g.Workload != "Rcu" {
			continue
		}
		found++
		switch g.Params["set"] {
		case "A":
			if g.Params["patch"] != "v2" || g.Params["kernel"] != "6.16-eln150" || !equalBits(g.Values("ms-mean"), []float64{10.088, 8.695}) {
				t.Errorf("A: %s %v", g.Key(), g.Values("ms-mean"))
			}
		case "B":
			if _, ok := g.Params["patch"]; ok || g.Params["kernel"] != "6.17" || !equalBits(g.Values("ms-mean"), []float64{20.176, 17.39}) {
				t.Errorf("B: %s %v", g.Key(), g.Values("ms-mean"))
			}
		default:
			t.Errorf("benchmark %s of no set", g.Key())
		}
	}
	if found != 2 {
		t.Errorf("%d rcu benchmarks, want 2:\n%s", found, buf.String())
	}
}

// equalBits compares values bit for bit.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
