package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/stats"
)

// BisectLine is bisect-run's evidence on one benchmark, on one line: the
// decision (good or bad; "" is skip, cannot tell, after --max-runs when
// the benchmark's runs reached it), the benchmark and its metric, then
// the comparison with the good set and the reason or, when there was no
// comparison (vsGood holds no runs of good), the reason alone.
//
// It takes the evidence's fields rather than bisect's type because
// package bisect words its reasons with report's number helpers.
func BisectLine(decision, bench, metric string, vsGood stats.Comparison, runs, maxRuns int, why string) string {
	d := decision
	if d == "" {
		d = "skip (cannot tell)"
		if runs >= maxRuns {
			d = fmt.Sprintf("skip (cannot tell after --max-runs %d)", maxRuns)
		}
	}
	if vsGood.A.N == 0 {
		return fmt.Sprintf("%s: %s %s: %s (%d runs)", d, bench, metric, why, runs)
	}
	c := vsGood
	// The design judged, when it was one across sessions.
	design := fmt.Sprintf("%d vs %d runs", c.B.N, c.A.N)
	if t := DesignText(c); t != "" && !c.Design.NoiseUnknown {
		design = strings.TrimSuffix(strings.TrimPrefix(t, "("), ")")
	}
	return fmt.Sprintf("%s: %s %s: %s %s %s vs good, %s: %s",
		d, bench, metric, Pct(c.Change), Interval(c.CI), PValue(c.P), design, why)
}

// WriteBisectOutcome prints the outcome of a bisect-run step: the judge's
// warnings on errw, then on w the evidence, a line per benchmark, and the
// decision with the exit status that git bisect run reads.
func WriteBisectOutcome(w, errw io.Writer, decision string, lines, warnings []string, code int) {
	for _, warn := range warnings {
		fmt.Fprintf(errw, "kdelta: warning: %s\n", warn)
	}
	for _, line := range lines {
		fmt.Fprintf(w, "bisect-run: %s\n", line)
	}
	fmt.Fprintf(w, "bisect-run: %s (exit %d)\n", decision, code)
}
