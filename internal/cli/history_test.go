package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// craftedSet is a stored set of one pipe benchmark whose runs have the
// given values, in order.
func craftedSet(id string, created time.Time, labels map[string]string, mode string, m result.Metric, values ...float64) *result.Set {
	b := &result.Benchmark{Workload: "pipe", Params: map[string]string{"mode": mode}, Metrics: []result.Metric{m}}
	for i, v := range values {
		b.Runs = append(b.Runs, &result.Run{Index: i, Start: created.Add(time.Duration(i) * time.Second), Status: result.StatusOK,
			Values: map[string]float64{m.Name: v}})
	}
	return &result.Set{Schema: result.Schema, ID: id, Created: created, Tool: "kdelta test", Labels: labels,
		Benchmarks: []*result.Benchmark{b}, Complete: true}
}

// around is n values spread ±2% about centre, the same spread each time.
func around(centre float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = centre * (1 + 0.01*float64(i%5-2))
	}
	return v
}

// craftedStore fills the store at path with pipe round trips of two
// modes over four builds, saved out of version order: process steps up
// 20% at 6.16, thread stays flat. The metric has no direction, which
// means lower is better, so the step is a regression (store.Regressed
// called it an improvement). One set has no kernel label and is left out
// with a warning on stderr.
func craftedStore(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lat := result.Metric{Name: "latency", Unit: "us"}
	at := func(h int) time.Time { return day0.Add(time.Duration(h) * time.Hour) }
	kernel := func(k string) map[string]string { return map[string]string{"kernel": k, "host": "p10"} }
	var sets []*result.Set
	for i, k := range []string{"6.16.1", "6.15", "6.16", "6.16-rc1"} {
		centre := 10.0
		if strings.HasPrefix(k, "6.16") && k != "6.16-rc1" {
			centre = 12
		}
		sets = append(sets,
			craftedSet(fmt.Sprintf("20260727T%02d0000-00000000000%d", 9+i, 2*i), at(i), kernel(k), "process", lat, around(centre, 10)...),
			craftedSet(fmt.Sprintf("20260727T%02d3000-00000000000%d", 9+i, 2*i+1), at(i).Add(30*time.Minute), kernel(k), "thread", lat, around(5, 10)...))
	}
	sets = append(sets, craftedSet("20260727T140000-0000000000aa", at(5), map[string]string{"host": "p10"}, "process", lat, around(50, 3)...))
	for _, s := range sets {
		if err := st.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistoryCLIGolden runs kdelta history over a crafted store in every
// format and checks its stdout and stderr against testdata/history/.
func TestHistoryCLIGolden(t *testing.T) {
	path := ownStore(t)
	craftedStore(t, path)
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			code, out, errs := kd(t, "history", "--by", "kernel", "--workload", "pipe", "--format", format)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			golden.Check(t, "history/"+format+".stdout", []byte(out))
			golden.Check(t, "history/"+format+".stderr", []byte(errs))
		})
	}
	// The verdicts the goldens show, checked apart so that -update cannot
	// hide a wrong one: one step, at 6.16, of process, a regression.
	_, out, _ := kd(t, "history", "--by", "kernel", "--workload", "pipe", "--format", "json")
	var doc struct {
		Series []struct {
			Params map[string]string
			Points []struct {
				Label string
				Step  *struct{ Verdict string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, s := range doc.Series {
		for _, p := range s.Points {
			if p.Step != nil {
				steps = append(steps, s.Params["mode"]+" "+p.Label+" "+p.Step.Verdict)
			}
		}
	}
	if strings.Join(steps, "; ") != "process 6.16 regressed" {
		t.Errorf("steps %q, want one: process 6.16 regressed", steps)
	}
}
