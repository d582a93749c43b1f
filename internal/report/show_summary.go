package report

import (
	"fmt"
	"io"
	"math"

	"github.com/kdelta/kdelta/internal/result"
)

// showSummaries prints the metrics b knows only as summaries (perf stat
// -r N prints the mean and its spread, not the runs): n, the mean ± the
// runs' standard deviation (the summary's standard error × √n) and its
// CV, with no median, min or max, which were not kept. It tells whether
// it printed any: a benchmark with neither runs nor summaries has no
// measured runs.
func showSummaries(w io.Writer, b *result.Benchmark, wide int) bool {
	var ms []result.Metric
	for _, m := range b.Metrics {
		if s, ok := b.Summaries[m.Name]; ok && s.N > 0 {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		wide = max(wide, len(m.Name))
	}
	n := 0
	fmt.Fprintf(w, "  %-*s %3s %24s %8s %12s %12s %12s\n", wide, "metric", "n", "mean ± stddev", "(CV)", "median", "min", "max")
	for _, m := range ms {
		s := b.Summaries[m.Name]
		n = max(n, s.N)
		sd := s.StdErr * math.Sqrt(float64(s.N))
		unit := ""
		if m.Unit != "" && m.Unit != m.Name {
			unit = " " + m.Unit
		}
		cv := "-"
		if s.Mean != 0 {
			cv = fmt.Sprintf("(%.1f%%)", 100*sd/math.Abs(s.Mean))
		}
		fmt.Fprintf(w, "  %-*s %3d %24s %8s %12s %12s %12s\n", wide, m.Name, s.N, Num(s.Mean)+" ± "+Num(sd)+unit, cv, "-", "-", "-")
	}
	fmt.Fprintf(w, "  (a summary of %d runs as the tool printed it: their values were not kept)\n", n)
	return true
}
