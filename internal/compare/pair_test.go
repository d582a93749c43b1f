package compare

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestPair drives the one pairing rule under kdelta compare's Pairing
// (the zero one) and under a reference's (bisect-run's), with the cases
// that paired differently while compare and bisect-run had a rule each.
func TestPair(t *testing.T) {
	bm := func(w, params string) *result.Benchmark {
		p := map[string]string{}
		if params != "" {
			k, v, _ := strings.Cut(params, "=")
			p[k] = v
		}
		return &result.Benchmark{Workload: w, Params: p}
	}
	a1, a2, pipe := bm("syscall", "calls=1"), bm("syscall", "calls=2"), bm("pipe", "")
	imported := bm("stress-ng", "stressor=kill")
	cmd := bm("command", "cmd=stress-ng")
	reference := Pairing{AnyParams: true, Foreign: func(w string) bool { return w == "stress-ng" }}
	tests := []struct {
		name string
		b    *result.Benchmark
		n    int
		in   []*result.Benchmark
		p    Pairing
		want *result.Benchmark
		note string
	}{
		{"same key", a1, 2, []*result.Benchmark{pipe, a1}, Pairing{}, a1, ""},
		{"same key, among its workload", a1, 1, []*result.Benchmark{a2, a1}, reference, a1, ""},
		{"one each, parameters differ", a1, 1, []*result.Benchmark{a2}, Pairing{}, a2, "(parameters differ)"},
		{"parameters differ beside another workload", a1, 2, []*result.Benchmark{a2, pipe}, Pairing{}, nil, ""},
		{"parameters differ beside another workload, reference", a1, 2, []*result.Benchmark{a2, pipe}, reference, a2, "(parameters differ)"},
		{"two of the workload, reference", pipe, 1, []*result.Benchmark{a1, a2}, reference, nil, ""},
		{"another workload, one each", pipe, 1, []*result.Benchmark{a1}, Pairing{}, nil, ""},
		{"foreign, one each", cmd, 1, []*result.Benchmark{imported}, Pairing{}, nil, ""},
		{"foreign, one each, reference", cmd, 1, []*result.Benchmark{imported}, reference, imported, "the only benchmark of the reference"},
		{"foreign, two measured, reference", cmd, 2, []*result.Benchmark{imported}, reference, nil, ""},
		{"not foreign, one each, reference", pipe, 1, []*result.Benchmark{a1}, reference, nil, ""},
	}
	for _, tt := range tests {
		got, note := Pair(tt.b, tt.n, tt.in, tt.p)
		if got != tt.want || tt.note == "" && note != "" || !strings.Contains(note, tt.note) {
			t.Errorf("%s: %v, %q; want %v, %q", tt.name, got, note, tt.want, tt.note)
		}
	}
}

// TestMetric checks the comparison of two benchmarks' metric against the
// row kdelta compare gives for the same two sets, and that a metric
// without a direction is lower is better there too.
func TestMetric(t *testing.T) {
	a := set(nil, nil, 100, 101, 99, 100, 102)
	b := set(nil, nil, 120, 121, 119, 120, 122)
	r, err := Compare([]Input{{"a", a}, {"b", b}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Metric(a.Benchmarks[0], b.Benchmarks[0], "ns/call", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Rows[0].Vs[0]; c.Verdict != row.Verdict || c.Change != row.Change || c.CI != row.CI || c.P != row.P {
		t.Errorf("Metric %+v, Compare's row %+v", c, row)
	}
	if c.Verdict != stats.Regressed {
		t.Errorf("20%% slower: %s", c.Verdict)
	}
	for _, better := range []result.Better{"", result.Lower, result.Higher} {
		a.Benchmarks[0].Metrics[0].Better = better
		c, _ := Metric(a.Benchmarks[0], b.Benchmarks[0], "ns/call", Options{})
		want := stats.Regressed
		if better == result.Higher {
			want = stats.Improved
		}
		if c.Verdict != want || c.Options.Better.Worse(c.Change) != a.Benchmarks[0].Metrics[0].Worse(c.Change) {
			t.Errorf("a 20%% rise, better %q: %s, want %s", better, c.Verdict, want)
		}
	}
	if _, err := Metric(a.Benchmarks[0], b.Benchmarks[0], "calls/s", Options{}); err == nil || !strings.Contains(err.Error(), "no values of calls/s") {
		t.Errorf("a metric the baseline lacks: %v", err)
	}
}
