package cli_test

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/store"
)

// TestLabelQuerySessions: a label query that selects several stored sets
// is several sessions of one side (issue 34, scope 3, acceptance 5).
// Three real kdelta runs of syscall a side, labelled kernel=6.15 and
// kernel=6.16, compare as 4 runs × 3 sessions each, with the session
// noise those six sessions show, recomputed here from the stored runs;
// results ls names the sets a query selects; two single sets compare as
// one session each, under the rule of one session a side.
func TestLabelQuerySessions(t *testing.T) {
	path := ownStore(t)
	for _, k := range []string{"6.15", "6.16"} {
		for range 3 {
			code, _, errs := kd(t, "run", "syscall:calls=20000", "-r", "4", "--warmup", "0", "--counters", "none", "--monitor", "none", "--label", "kernel="+k)
			if code != 0 {
				t.Fatalf("run kernel=%s: exit %d: %s", k, code, errs)
			}
		}
	}

	code, out, errs := kd(t, "results", "ls", "kernel=6.15")
	if code != 0 {
		t.Fatalf("results ls kernel=6.15: exit %d: %s", code, errs)
	}
	if n := strings.Count(out, "kernel=6.15\n"); n != 3 || strings.Contains(out, "kernel=6.16\n") {
		t.Errorf("results ls kernel=6.15 lists %d sets of 6.15 (want 3, none of 6.16):\n%s", n, out)
	}
	if !strings.Contains(out, "kernel=6.15 selects 3 stored sets: compare and explain take them as 3 sessions of one side") {
		t.Errorf("results ls kernel=6.15 does not say what it selects:\n%s", out)
	}

	code, out, errs = kd(t, "compare", "kernel=6.15", "kernel=6.16", "--metrics", "ns/call")
	if code != 0 {
		t.Fatalf("compare kernel=6.15 kernel=6.16: exit %d: %s\n%s", code, errs, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	m := regexp.MustCompile(`B vs A: .* \(4 runs × 3 sessions each, session noise ±([0-9.]+)% from these 6 sessions`).FindStringSubmatch(flat)
	if m == nil {
		t.Fatalf("the verdict does not name 3 sessions each and their noise:\n%s", out)
	}
	printed, _ := strconv.ParseFloat(m[1], 64)
	if want := 100 * ownNoiseOf(t, path); math.Abs(printed-want) > 0.051 {
		t.Errorf("session noise printed ±%.1f%%, the six sessions show ±%.2f%%", printed, want)
	}

	// One set a side: one session each, judged as point 2 says.
	var ids [2]string
	st := openStore(t, path)
	for i, k := range []string{"6.15", "6.16"} {
		infos, err := st.List(context.Background(), store.Filter{Labels: []store.Label{{Name: "kernel", Value: k}}})
		if err != nil || len(infos) != 3 {
			t.Fatalf("kernel=%s: %d sets, %v", k, len(infos), err)
		}
		ids[i] = infos[2].ID
	}
	st.Close()
	_, out, _ = kd(t, "compare", ids[0], ids[1], "--metrics", "ns/call")
	flat = strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "(4 runs × 1 session each, session noise ±") || strings.Contains(flat, "from these") {
		t.Errorf("two single sets do not compare as one session each under the host's noise:\n%s", out)
	}
}

func openStore(t *testing.T, path string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// ownNoiseOf is the session noise of ns/call that the sets of the store
// at path show within their kernel label: on logs, the variance of the
// sets' mean values pooled within each kernel, less the pooled variance
// of runs within sets over the runs a set, floored at zero.
func ownNoiseOf(t *testing.T, path string) float64 {
	t.Helper()
	st := openStore(t, path)
	defer st.Close()
	ctx := context.Background()
	var ssMeans, ssRuns, invN float64
	var dfMeans, dfRuns, sessions int
	for _, k := range []string{"6.15", "6.16"} {
		infos, err := st.List(ctx, store.Filter{Labels: []store.Label{{Name: "kernel", Value: k}}})
		if err != nil {
			t.Fatal(err)
		}
		var means []float64
		for _, in := range infos {
			s, err := st.Get(ctx, in.ID)
			if err != nil {
				t.Fatal(err)
			}
			var logs []float64
			for _, v := range s.Benchmarks[0].Values("ns/call") {
				logs = append(logs, math.Log(v))
			}
			mu := meanOf(logs)
			for _, x := range logs {
				ssRuns += (x - mu) * (x - mu)
			}
			dfRuns += len(logs) - 1
			invN += 1 / float64(len(logs))
			sessions++
			means = append(means, mu)
		}
		mu := meanOf(means)
		for _, x := range means {
			ssMeans += (x - mu) * (x - mu)
		}
		dfMeans += len(means) - 1
	}
	v := ssMeans/float64(dfMeans) - ssRuns/float64(dfRuns)*invN/float64(sessions)
	return math.Sqrt(math.Max(v, 0))
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
