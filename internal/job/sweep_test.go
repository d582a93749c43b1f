package job_test

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestWriteSweep checks the sweep table and the verdicts of simulated
// variants: b is 20% slower than a at every point, from a fixed seed. The
// cells' runs share one session, as Run's do, so the runs are judged.
func TestWriteSweep(t *testing.T) {
	vs := []job.Variant{{Name: "a"}, {Name: "b"}}
	smt, _ := job.ParseAxis("smt=on,off")
	cells := job.Cells(nil, vs, []job.Axis{smt})
	m := result.Metric{Name: "time", Unit: "s", Better: result.Lower}
	var sets []*result.Set
	for i := range cells {
		s := &result.Set{Labels: cells[i].Labels}
		b := &result.Benchmark{Workload: "messaging", Params: map[string]string{"groups": "2"}, Metrics: []result.Metric{m}}
		base := 1.0
		if cells[i].Variant == "b" {
			base = 1.2
		}
		for k := 0; k < 6; k++ {
			b.Runs = append(b.Runs, &result.Run{Status: result.StatusOK, Session: "job", Values: map[string]float64{"time": base * (1 + 0.01*float64(k%3))}})
		}
		s.Benchmarks = []*result.Benchmark{b}
		sets = append(sets, s)
	}
	var w strings.Builder
	report.WriteSweep(&w, job.SweepTables(cells, sets, []job.Axis{smt}, compare.Options{}))
	want := `sweep: messaging time (s, lower is better): median of the measured runs, CV in brackets
smt  a                 b                 b vs a  verdict
on   1.010 [0.9%] n=6  1.212 [0.9%] n=6  +20.0%  regressed
off  1.010 [0.9%] n=6  1.212 [0.9%] n=6  +20.0%  regressed
`
	if w.String() != want {
		t.Errorf("sweep table:\n%s\nwant:\n%s", w.String(), want)
	}
	verdicts := job.Verdicts(cells, sets, compare.Options{})
	if len(verdicts) != 2 || verdicts[0].Comparison.Verdict != stats.Regressed {
		t.Errorf("verdicts: %v", verdicts)
	}
	for _, v := range verdicts {
		if v.Open {
			t.Errorf("pending: %v", v)
		}
	}
}
