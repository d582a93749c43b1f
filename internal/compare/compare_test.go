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

// TestCompareThreeNamesEachSet checks that a sample's warnings in a
// comparison of three sets name the set they are about: C's cold first
// run is C's, under C vs A, and B's comparison has none of it.
func TestCompareThreeNamesEachSet(t *testing.T) {
	a := set(map[string]string{"kernel": "a"}, nil, 100, 101, 99, 100, 102, 100, 101, 99)
	b := set(map[string]string{"kernel": "b"}, nil, 100, 101, 99, 100, 102, 100, 101, 99)
	c := set(map[string]string{"kernel": "c"}, nil, 120, 100, 101, 99, 100, 102, 100, 101)
	r, err := Compare([]Input{{"a", a}, {"b", b}, {"c", c}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	vsB, vsC := strings.Join(r.Rows[0].Vs[0].Warnings, "\n"), strings.Join(r.Rows[0].Vs[1].Warnings, "\n")
	if !strings.Contains(vsC, "C: the first run is worse") || strings.Contains(vsC, "B:") {
		t.Errorf("C vs A warnings %q: want C's cold first run named C", r.Rows[0].Vs[1].Warnings)
	}
	if strings.Contains(vsB, "first run") {
		t.Errorf("B vs A warnings %q: B's runs are clean", r.Rows[0].Vs[0].Warnings)
	}
}

// TestCompareSameSet checks that a set compared with itself, by id or by
// content (a file imported twice gets a new id), is said once per pair,
// and that two different sets are not.
func TestCompareSameSet(t *testing.T) {
	a := set(nil, nil, 100, 101, 99, 100, 102)
	a.ID = "20261201T101518-d20f95b78208"
	again := set(nil, nil, 100, 101, 99, 100, 102)
	again.ID = "20261201T101519-d20f95b78208"
	other := set(nil, nil, 100, 101, 99, 100, 103)
	for _, tt := range []struct {
		name string
		ins  []Input
		want []string
	}{
		{"one file twice", []Input{{"a", a}, {"a#2", a}}, []string{"a and a#2 are the same result set (id 20261201T101518-d20f95b78208)"}},
		{"imported twice", []Input{{"a", a}, {"b", again}}, []string{"a and b are the same result set (the same benchmarks and values)"}},
		{"third is the first", []Input{{"a", a}, {"o", other}, {"a#2", a}}, []string{"a and a#2 are the same result set"}},
		{"different", []Input{{"a", a}, {"o", other}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(tt.ins, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var same []string
			for _, w := range r.Warnings {
				if strings.Contains(w, "same result set") {
					same = append(same, w)
				}
			}
			if len(same) != len(tt.want) {
				t.Fatalf("warnings %q: want %d about the same set", r.Warnings, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(same[i], w) {
					t.Errorf("warning %q, want %q", same[i], w)
				}
			}
		})
	}
}
