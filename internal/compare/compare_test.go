package compare

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

func set(labels map[string]string, warnings []string, values ...float64) *result.Set {
	b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "10"},
		Metrics: []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}}}
	for i, v := range values {
		b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"ns/call": v}})
	}
	return &result.Set{Schema: result.Schema, Labels: labels, Warnings: warnings, Benchmarks: []*result.Benchmark{b}}
}

func TestCompareCarriesSetWarnings(t *testing.T) {
	tcg := "timings emulated under TCG"
	a := set(map[string]string{"kernel": "6.1", "preempt": "none"}, []string{tcg}, 100, 101, 99, 100, 102)
	b := set(map[string]string{"kernel": "6.1", "preempt": "full"}, []string{tcg, "load high"}, 120, 121, 119, 120, 122)
	names := Names([]*result.Set{a, b}, []string{"a.json", "b.json"})
	if names[0] != "preempt=none" || names[1] != "preempt=full" {
		t.Errorf("names %v: want the differing label", names)
	}
	r, err := Compare([]Input{{names[0], a}, {names[1], b}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(r.Warnings, "\n")
	if !strings.Contains(joined, "preempt=none, preempt=full: "+tcg) || !strings.Contains(joined, "preempt=full: load high") {
		t.Errorf("warnings %q: want each set warning once, naming its sets", r.Warnings)
	}
	if r.Rows[0].Vs[0].Verdict != stats.Regressed {
		t.Errorf("20%% slower: verdict %s", r.Rows[0].Vs[0].Verdict)
	}
	if g := r.GeoMean[0]; g < 1.15 || g > 1.25 {
		t.Errorf("geomean cost ratio %v, want about 1.2", g)
	}
}

func TestCompareNeedsShared(t *testing.T) {
	a := set(nil, nil, 1, 2, 3)
	b := set(nil, nil, 1, 2, 3)
	b.Benchmarks[0].Workload = "pipe"
	if _, err := Compare([]Input{{"a", a}, {"b", b}}, Options{}); err == nil {
		t.Error("sets without a shared workload compared")
	}
	if _, err := Compare([]Input{{"a", a}}, Options{}); err == nil {
		t.Error("one set compared")
	}
}
