package store

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
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
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
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

		hs, err := History(ctx, st, HistoryQuery{By: "kernel", Workload: "kill"})
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
		if !Regressed(h.Metric, h.Steps[0].Change) || h.Metric.Name != "bogo-ops/s" {
			t.Errorf("metric %+v: a fall of bogo-ops/s is a regression", h.Metric)
		}

		// By time: one point per set, oldest first, the unlabelled one too.
		hs, err = History(ctx, st, HistoryQuery{By: ByTime, Workload: "kill"})
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
		hs, err = History(ctx, st, HistoryQuery{By: "kernel", Workload: "pipe"})
		if err != nil || len(hs) != 2 || hs[0].Key() != "pipe:mode=process" || hs[1].Key() != "pipe:mode=thread" {
			t.Fatalf("pipe series: %v %v", hs, err)
		}
		if len(hs[0].Points) != 2 || len(hs[0].Steps) != 1 || !Regressed(hs[0].Metric, hs[0].Steps[0].Change) {
			t.Errorf("pipe process: %+v", hs[0])
		}
		hs, err = History(ctx, st, HistoryQuery{By: "kernel", Workload: "pipe", Params: map[string]string{"mode": "thread"}, Labels: []Label{{"kernel", "6.16"}}})
		if err != nil || len(hs) != 1 || len(hs[0].Points) != 1 || len(hs[0].Steps) != 0 {
			t.Errorf("filtered: %+v %v", hs, err)
		}
		if hs, err := History(ctx, st, HistoryQuery{By: "kernel", Workload: "nosuch"}); err != nil || len(hs) != 0 {
			t.Errorf("unknown workload: %v %v", hs, err)
		}
	})
}
