package calibrate_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/calibrate"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestMain lets the test binary serve as the measured child, as the
// kdelta binary does.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestRunSavesAndLooksUp calibrates a real syscall workload over three
// sessions, stores the noise and finds it again for a comparison of two
// later sessions, which then judges them with it.
func TestRunSavesAndLooksUp(t *testing.T) {
	sp, err := workload.ParseSpec("syscall:calls=20000")
	if err != nil {
		t.Fatal(err)
	}
	specs := []workload.Spec{sp}
	ro, err := runner.Setup{CPUs: "0", Repeat: 4, Version: "test"}.Options()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := calibrate.Run(ctx, specs, calibrate.Options{Sessions: 3, Runner: *ro})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 3 || res.Sets[0].ID == res.Sets[1].ID {
		t.Fatalf("%d sets", len(res.Sets))
	}
	for _, s := range res.Sets {
		for _, r := range s.Benchmarks[0].Measured() {
			if r.Session != s.ID {
				t.Errorf("set %s: a run of session %q: every session is a fresh one", s.ID, r.Session)
			}
		}
	}
	if len(res.Noises) != len(res.Sets[0].Benchmarks[0].Metrics) {
		t.Fatalf("noises %+v, warnings %q", res.Noises, res.Warnings)
	}
	for _, n := range res.Noises {
		if n.Noise.DF != 2 || !n.Noise.Known() || n.Key.Host == "" || n.Key.Workload != "syscall" || !strings.Contains(n.Key.Conditions, "cpus_allowed=0") {
			t.Errorf("noise %+v", n)
		}
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kdelta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := calibrate.Save(ctx, st, res); err != nil {
		t.Fatal(err)
	}
	// Two later sessions of the same setup find it.
	var later []compare.Input
	for _, name := range []string{"a", "b"} {
		set, err := runner.Run(ctx, specs, ro)
		if err != nil {
			t.Fatal(err)
		}
		later = append(later, compare.Input{Name: name, Set: set})
	}
	if got, err := calibrate.ForSet(ctx, st, later[0].Set); err != nil || len(got) != len(res.Noises) {
		t.Errorf("ForSet: %+v, %v", got, err)
	}
	r, err := compare.Compare(later, compare.Options{Noise: calibrate.Lookup(ctx, st)})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		if d := row.Vs[0].Design; d.NoiseUnknown || d.Noise != res.Noises[0].Noise && d.Noise != res.Noises[1].Noise {
			t.Errorf("%s: design %+v, want the calibration's noise", row.Metric.Name, d)
		}
	}
	// Under other conditions (another CPU) the noise is not this one.
	other := *later[0].Set
	b := *other.Benchmarks[0]
	run := *b.Measured()[0]
	run.Info = map[string]string{"cpus_allowed": "1", "policy": run.Info["policy"]}
	b.Runs = []*result.Run{&run}
	if n := calibrate.Lookup(ctx, st)(&other, &b, b.Metrics[0].Name); n.Known() {
		t.Errorf("noise of cpus_allowed=0 found for cpus_allowed=1: %+v", n)
	}
	if _, err := calibrate.Run(ctx, specs, calibrate.Options{Sessions: 1, Runner: *ro}); err == nil || !strings.Contains(err.Error(), "--sessions") {
		t.Errorf("one session: %v", err)
	}
	if _, err := calibrate.RunWorkloads(ctx, []string{"nope"}, runner.Setup{Repeat: 2}, calibrate.Options{}); err == nil || !strings.Contains(err.Error(), `unknown workload "nope"`) {
		t.Errorf("an unknown workload: %v", err)
	}
	if _, err := calibrate.RunWorkloads(ctx, []string{"syscall"}, runner.Setup{CPUs: "4095", Repeat: 2}, calibrate.Options{}); err == nil || !strings.Contains(err.Error(), "CPU 4095") {
		t.Errorf("a CPU not here: %v", err)
	}
}

// TestEstimate checks the estimate over sets of simulated A/A sessions of
// a known session CV (fixed seed), and the warnings for what cannot be
// estimated.
func TestEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	var sets []*result.Set
	for i := range 40 {
		b := &result.Benchmark{Workload: "w", Metrics: []result.Metric{{Name: "t"}, {Name: "zero"}}}
		centre := 100 * math.Exp(0.05*rng.NormFloat64())
		for range 8 {
			b.Runs = append(b.Runs, &result.Run{Status: result.StatusOK, Values: map[string]float64{"t": centre * (1 + 0.01*rng.NormFloat64()), "zero": 0}})
		}
		sets = append(sets, &result.Set{ID: string(rune('a' + i)), Labels: map[string]string{"host": "h"}, Benchmarks: []*result.Benchmark{b}})
	}
	ns, warns := calibrate.Estimate(sets, time.Time{})
	if len(ns) != 1 || ns[0].Noise.DF != 39 || math.Abs(ns[0].Noise.SD-0.05) > 0.015 || ns[0].Key != (store.NoiseKey{Host: "h", Workload: "w", Metric: "t"}) {
		t.Errorf("noises %+v", ns)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "w: zero") || !strings.Contains(warns[0], "not a positive figure") {
		t.Errorf("warnings %q", warns)
	}
	var unknown stats.SessionNoise
	if calibrate.Lookup(context.Background(), nil)(sets[0], sets[0].Benchmarks[0], "t") != unknown {
		t.Error("no store: a noise")
	}
}
