package result

import (
	"strings"
	"testing"
)

// rcuMetrics are the rcu workload's metrics as internal/workload declares
// them (result cannot import workload; the cli test checks the real ones).
var rcuMetrics = []Metric{
	{Name: "mean", Unit: "ms", Better: Lower}, {Name: "min", Unit: "ms", Better: Lower},
	{Name: "p50", Unit: "ms", Better: Lower}, {Name: "max", Unit: "ms", Better: Lower},
}

// TestAsWorkload makes seed mail 002's tables benchmarks of the rcu
// workload: the run table keeps its millisecond values, and the per-call
// table's medians become p50 and its microseconds milliseconds.
func TestAsWorkload(t *testing.T) {
	base := importFile(t, "seed-002-baseline.md", "")
	if err := AsWorkload([]*Set{base}, "rcu", rcuMetrics); err != nil {
		t.Fatal(err)
	}
	b := bench(t, base, "rcu")
	if r := b.Runs[0]; r.Values["mean"] != 10.088 || r.Values["max"] != 18.848 || r.Latency.Unit != "ms" || metric(t, b, "mean").Unit != "ms" {
		t.Errorf("run 1 %v latency %+v", r.Values, r.Latency)
	}

	sets := importSets(t, "seed-002-per-call.txt")
	if err := AsWorkload(sets, "rcu", rcuMetrics); err != nil {
		t.Fatal(err)
	}
	b = bench(t, sets[0], "rcu")
	if v := b.Runs[0].Values; v["p50"] != 37.2495 || v["min"] != 7.881 || v["max"] != 63.651 || len(v) != 3 {
		t.Errorf("variant 1: %v, want the mail's usec in ms, median as p50", v)
	}
	if m := metric(t, b, "p50"); m.Unit != "ms" {
		t.Errorf("p50 %+v", m)
	}

	// A figure in another unit than time cannot be one of rcu's.
	sel := importFile(t, "seed-000-selinux.txt", "")
	err := AsWorkload([]*Set{sel}, "rcu", []Metric{{Name: "kill-bogo-ops/sec", Unit: "ms"}})
	if err == nil || !strings.Contains(err.Error(), "--as rcu: seed-000-selinux.txt: metric kill-bogo-ops/sec") {
		t.Errorf("bogo-ops as ms: %v", err)
	}
}
