package report

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestWriteSweep renders two sweeps with every kind of cell: a parameter
// a benchmark lacks, a variant skipped, one without runs, a pair that
// could not be compared, an inconclusive verdict with the runs it needs,
// a metric without unit or direction (lower is better, as everywhere),
// and a job without variants (its one column is the median).
func TestWriteSweep(t *testing.T) {
	bench := func(vs ...float64) *result.Benchmark {
		b := &result.Benchmark{Workload: "messaging", Metrics: []result.Metric{{Name: "time"}}}
		for i, v := range vs {
			b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"time": v}})
		}
		return b
	}
	skipped := &result.Benchmark{Workload: "messaging", Skipped: "no such knob"}
	sweeps := []job.Sweep{
		{
			Workload: "messaging", Metric: result.Metric{Name: "time", Unit: "s", Better: result.Lower},
			Axes: []string{"smt", "groups"}, Variants: []string{"a", "b"},
			Rows: []job.SweepRow{
				{Values: []string{"on", "2"}, Benchmarks: []*result.Benchmark{bench(1, 1.01, 1.02), bench(1.2, 1.21, 1.22)},
					Vs: []*stats.Comparison{{Change: 0.2, Verdict: stats.Regressed}}},
				{Values: []string{"on", ""}, Benchmarks: []*result.Benchmark{bench(1), bench()},
					Vs: []*stats.Comparison{nil}},
				{Values: []string{"off", "2"}, Benchmarks: []*result.Benchmark{bench(1, 1.01), skipped},
					Vs: []*stats.Comparison{{Change: -0.004, Verdict: stats.Inconclusive, NeedRuns: 12}}},
			},
		},
		{
			Workload: "syscall", Metric: result.Metric{Name: "time"},
			Axes: []string{"smt"}, Variants: []string{""},
			Rows: []job.SweepRow{{Values: []string{"on"}, Benchmarks: []*result.Benchmark{bench(100, 101, 102)}}},
		},
	}
	var b strings.Builder
	WriteSweep(&b, sweeps)
	want := `sweep: messaging time (s, lower is better): median of the measured runs, CV in brackets
smt  groups  a                 b                 b vs a  verdict
on   2       1.010 [1.0%] n=3  1.210 [0.8%] n=3  +20.0%  regressed
on   -       1.000 [0.0%] n=1  no runs           -       -
off  2       1.005 [0.7%] n=2  skipped           -0.40%  inconclusive (need ≈12 runs)

sweep: syscall time (no unit, lower is better): median of the measured runs, CV in brackets
smt  median
on   101.0 [1.0%] n=3
`
	if b.String() != want {
		t.Errorf("sweep tables:\n%s\nwant:\n%s", b.String(), want)
	}
}
