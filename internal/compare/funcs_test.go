package compare

import (
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

func funcRun(warm bool, lost int64, raw ...float64) *result.Run {
	l := result.Summarize("us", raw)
	return &result.Run{Status: result.StatusOK, Warmup: warm, Functions: []result.Function{{
		Name: "f", Tracer: "function_graph", Scope: "system", Calls: *l, Lost: lost,
		Hist: []result.Bucket{{Lo: 8, Hi: 16, Count: int64(len(raw))}}}}}
}

// TestPoolFunc: the calls of every measured run together (warm-ups left
// out): the median of all of them, the least and greatest, the histograms
// added and the lost events summed; a run that kept only its summary makes
// the median that of the runs' medians, and says so.
func TestPoolFunc(t *testing.T) {
	b := &result.Benchmark{Runs: []*result.Run{
		funcRun(true, 0, 1000),
		funcRun(false, 0, 10, 11, 12),
		funcRun(false, 3, 13, 14, 15.5),
	}}
	p := PoolFunc(b, "f")
	if p.Runs != 2 || p.Calls != 6 || !p.Pooled || p.Median != 12.5 || p.Min != 10 || p.Max != 15.5 || p.Lost != 3 {
		t.Errorf("pool %+v", p)
	}
	if len(p.Hist) != 1 || p.Hist[0].Count != 6 {
		t.Errorf("histogram %+v, want the two runs' 6 calls in one bucket", p.Hist)
	}
	// A run with more calls than it kept.
	big := funcRun(false, 0, 20, 21, 22)
	big.Functions[0].Calls.Raw = nil
	b.Runs = append(b.Runs, big)
	p = PoolFunc(b, "f")
	if p.Pooled || p.Median != 13 || p.Calls != 9 {
		t.Errorf("pool without every run's calls %+v, want the median of the runs' p50s 10, 13, 20 (rcuscale's index)", p)
	}
	if none := PoolFunc(b, "g"); none.Runs != 0 || none.Calls != 0 {
		t.Errorf("a function no run timed: %+v", none)
	}
}
