package compare

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// counterSet is a syscall set of n runs in the shared session s1 (as ab's
// cells are), each of ops operations, whose ns/call is near ns, with a
// context-switch counter and rusage near cs and vol per operation.
func counterSet(rng *rand.Rand, n int, ns, cs, vol float64) *result.Set {
	b := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "1000"},
		Metrics: []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}}}
	const ops = 1000
	jitter := func(x float64) float64 { return x * (1 + 0.003*rng.NormFloat64()) }
	for i := 0; i < n; i++ {
		b.Runs = append(b.Runs, &result.Run{
			Index: i, Status: result.StatusOK, Session: "s1", Ops: ops,
			Values:     map[string]float64{"ns/call": jitter(ns)},
			Counters:   []result.Counter{{Name: "cs", Value: math.Round(jitter(cs) * ops)}, {Name: "cycles", Unsupported: "not supported"}},
			VolCtxSw:   int64(math.Round(jitter(vol) * ops)),
			InvolCtxSw: int64(i % 3),
			UserSec:    jitter(1e-4), SysSec: jitter(ns * ops * 1e-9),
		})
	}
	return &result.Set{Schema: result.Schema, Benchmarks: []*result.Benchmark{b}}
}

// TestCompareCounters checks that --metrics all compares the runs'
// counters and rusage per operation as metrics of their own, a count of
// the kernel's work getting "changed", never improved or regressed, and
// that the default compares the workload's metrics only.
func TestCompareCounters(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	a := counterSet(rng, 10, 100, 2, 1)
	b := counterSet(rng, 10, 100, 3, 0.5) // more switches, fewer voluntary, same speed
	ins := []Input{{Name: "a", Set: a}, {Name: "b", Set: b}}

	r, err := Compare(ins, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0].Metric.Name != "ns/call" {
		t.Fatalf("default rows %v, want the workload's ns/call alone", rowNames(r))
	}

	r, err = Compare(ins, Options{Metrics: "all"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]stats.Comparison{}
	better := map[string]result.Better{}
	for _, row := range r.Rows {
		got[row.Metric.Name] = row.Vs[0]
		better[row.Metric.Name] = row.Metric.Better
	}
	for name, want := range map[string]stats.Verdict{
		"cs/op":              stats.Changed, // +50%
		"voluntary-ctxsw/op": stats.Changed, // −50%
		"ns/call":            stats.NoChange,
	} {
		c, ok := got[name]
		if !ok {
			t.Errorf("no row %s in %v", name, rowNames(r))
			continue
		}
		if c.Verdict != want {
			t.Errorf("%s: %s (%+.1f%% %v p=%.3g), want %s", name, c.Verdict, 100*c.Change, c.CI, c.P, want)
		}
	}
	if _, ok := got["cycles/op"]; ok {
		t.Error("a counter perf could not count became a metric")
	}
	for name, want := range map[string]result.Better{"cs/op": result.Neither, "involuntary-ctxsw/op": result.Neither, "sys/op": result.Lower, "user/op": result.Lower} {
		if better[name] != want {
			t.Errorf("%s: better %q, want %q", name, better[name], want)
		}
	}
	// sys ns/op is the ns/call here: the unit scales seconds to ns.
	if c := got["sys/op"]; math.Abs(c.A.Median/100-1) > 0.05 {
		t.Errorf("sys/op median %v, want ≈100 ns", c.A.Median)
	}
	// The geomean is the primary metric's, unmoved by the counters.
	if g := r.GeoMean[0]; math.Abs(g-1) > 0.02 {
		t.Errorf("geomean %v, want ≈1 (ns/call did not change)", g)
	}

	if r, err = Compare(ins, Options{Metrics: "voluntary-ctxsw/op,ns/call"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(rowNames(r), " "); n != "ns/call voluntary-ctxsw/op" {
		t.Errorf("list rows %q", n)
	}
	if _, err := Compare(ins, Options{Metrics: "context-switch"}); err == nil || !strings.Contains(err.Error(), `no metric context-switch`) || !strings.Contains(err.Error(), "cs/op") {
		t.Errorf("unknown metric: %v", err)
	}
	if _, err := ParseMetrics("a,,b"); err == nil {
		t.Error("an empty name in the list was accepted")
	}
}

// TestGeomeanOverTimesOnly checks seed 001's trap: two perf stat imports
// whose elapsed time regressed while their context switches fell must not
// give a geomean below 1 ("faster").
func TestGeomeanOverTimesOnly(t *testing.T) {
	block := func(elapsed, cs float64) string {
		return "\n Performance counter stats for 'perf bench sched messaging' (10 runs):\n\n" +
			"        " + ftoa(cs) + "      context-switches          ( +-  0.50% )\n" +
			"        " + ftoa(cs/10) + "      cpu-migrations           ( +-  0.50% )\n\n" +
			"       " + ftoa(elapsed) + " +- 0.001 seconds time elapsed  ( +-  0.10% )\n"
	}
	a, err := result.Import("a.txt", []byte(block(1.0, 3000000)), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := result.Import("b.txt", []byte(block(1.918, 600000)), "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compare([]Input{{Name: "a", Set: a}, {Name: "b", Set: b}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := r.GeoMean[0]; math.Abs(g-1.918) > 0.01 {
		t.Errorf("geomean %v, want the elapsed ratio 1.918", g)
	}
	for _, row := range r.Rows {
		if row.Metric.Name == "context-switches" && row.Metric.Better != result.Neither {
			t.Errorf("context-switches: better %q", row.Metric.Better)
		}
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func rowNames(r *Result) []string {
	var out []string
	for _, row := range r.Rows {
		out = append(out, row.Metric.Name)
	}
	return out
}
