package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// set is a set of one benchmark whose runs took values, all in the one
// session "s1" that every set of these tests shares, as kdelta ab's
// interleaved cells do: the run-level verdict judges them.
func set(labels map[string]string, warnings []string, values ...float64) *result.Set {
	return sessionSet(labels, warnings, []string{"s1"}, values...)
}

// sessionSet is set with its runs spread over sessions in turn.
func sessionSet(labels map[string]string, warnings []string, sessions []string, values ...float64) *result.Set {
	b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "10"},
		Metrics: []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}}}
	for i, v := range values {
		b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Session: sessions[i%len(sessions)], Values: map[string]float64{"ns/call": v}})
	}
	return &result.Set{Schema: result.Schema, Labels: labels, Warnings: warnings, Benchmarks: []*result.Benchmark{b}}
}

// TestCompareDesigns checks that the design of the sessions picks the
// test: shared sessions the run-level one; one session a side (runs
// without a session, as old sets and imports have) the interval widened
// by the host's session noise, or without it by the prior it names;
// several sessions a side the test over sessions; summaries one session
// each.
func TestCompareDesigns(t *testing.T) {
	slow := []float64{120, 121, 119, 120, 122, 120, 121, 119}
	base := []float64{100, 101, 99, 100, 102, 100, 101, 99}
	noise := func(*result.Set, *result.Benchmark, string) stats.SessionNoise {
		return stats.SessionNoise{SD: 0.03, MeanSD: 0.03, Runs: 8, DF: 7}
	}
	summary := func(mean float64) *result.Set {
		s := sessionSet(nil, nil, []string{""})
		s.Benchmarks[0].Summaries = map[string]result.Summary{"ns/call": {N: 10, Mean: mean, StdErr: 0.3}}
		return s
	}
	prior := stats.Assumed(PriorVirtual, stats.NoisePrior, "a machine of unknown kind")
	for _, tt := range []struct {
		name   string
		a, b   *result.Set
		noise  func(*result.Set, *result.Benchmark, string) stats.SessionNoise
		want   stats.Verdict
		design stats.Design
	}{
		{"shared session", set(nil, nil, base...), set(nil, nil, slow...), nil, stats.Regressed,
			stats.Design{Shared: true, Sessions: [2]int{1, 1}, Runs: [2]int{8, 8}}},
		{"one session each, the prior", sessionSet(nil, nil, []string{""}, base...), sessionSet(nil, nil, []string{""}, slow...), nil, stats.Inconclusive,
			stats.Design{Sessions: [2]int{1, 1}, Runs: [2]int{8, 8}, Noise: prior}},
		{"one session each, calibrated", sessionSet(nil, nil, []string{"a"}, base...), sessionSet(nil, nil, []string{"b"}, slow...), noise, stats.Regressed,
			stats.Design{Sessions: [2]int{1, 1}, Runs: [2]int{8, 8}, Noise: noise(nil, nil, "")}},
		{"four sessions each", sessionSet(nil, nil, []string{"a1", "a2", "a3", "a4"}, base...), sessionSet(nil, nil, []string{"b1", "b2", "b3", "b4"}, slow...), nil, stats.Regressed,
			stats.Design{Sessions: [2]int{4, 4}, Runs: [2]int{8, 8}}},
		{"summaries, the prior", summary(100), summary(120), nil, stats.Inconclusive,
			stats.Design{Sessions: [2]int{1, 1}, Runs: [2]int{10, 10}, Noise: prior}},
		{"summaries, calibrated", summary(100), summary(120), noise, stats.Regressed,
			stats.Design{Sessions: [2]int{1, 1}, Runs: [2]int{10, 10}, Noise: noise(nil, nil, "")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare([]Input{{"a", tt.a}, {"b", tt.b}}, Options{Noise: tt.noise})
			if err != nil {
				t.Fatal(err)
			}
			c := r.Rows[0].Vs[0]
			// Sessions on both sides: their own noise, estimated over
			// 2×(4−1) degrees of freedom; none for one session a side.
			got, own := c.Design, c.Design.Own
			got.Own = stats.SessionNoise{}
			if wantOwn := tt.design.Sessions[0] > 1 && tt.design.Sessions[1] > 1; own.Known() != wantOwn || wantOwn && own.DF != 2*(tt.design.Sessions[0]-1) {
				t.Errorf("own session noise %+v, want one over the sessions: %v", own, wantOwn)
			}
			if c.Verdict != tt.want || got != tt.design {
				t.Errorf("%s %+v, want %s %+v", c.Verdict, got, tt.want, tt.design)
			}
			if c.Change < 0.19 || c.Change > 0.21 || math.IsInf(c.CI[1], 1) {
				t.Errorf("change %v CI %v, want +20%% and a bound", c.Change, c.CI)
			}
		})
	}
	// A noise recorded for the baseline's conditions only (the other set
	// ran elsewhere, or on other CPUs) is no noise for the pair: the
	// prior stands in.
	a0, b0 := sessionSet(nil, nil, []string{"a"}, base...), sessionSet(nil, nil, []string{"b"}, slow...)
	onlyA := func(s *result.Set, _ *result.Benchmark, _ string) stats.SessionNoise {
		if s == a0 {
			return noise(nil, nil, "")
		}
		return stats.SessionNoise{}
	}
	if r, err := Compare([]Input{{"a", a0}, {"b", b0}}, Options{Noise: onlyA}); err != nil || r.Rows[0].Vs[0].Design.Noise != prior {
		t.Errorf("noise of one side's conditions: %+v, %v", r.Rows[0].Vs[0].Design, err)
	}
	// RunsOnly judges separate sessions run by run, as bisect-run does.
	a, b := sessionSet(nil, nil, []string{""}, base...), sessionSet(nil, nil, []string{""}, slow...)
	if c, err := Metric(a.Benchmarks[0], b.Benchmarks[0], "ns/call", Options{RunsOnly: true}); err != nil || c.Verdict != stats.Regressed {
		t.Errorf("RunsOnly: %s, %v", c.Verdict, err)
	}
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
