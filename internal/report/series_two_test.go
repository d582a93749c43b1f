package report

import (
	"strings"
	"testing"
)

// TestSeriesOfTwoEndsWithVerdict: kdelta series of two builds ends, for
// each workload, with the verdict between them as compare gives it, not
// only "no change points" (issue 34, scope 7). The builds are the golden
// pair (seed mail 002's tables as rcu runs, the fix 38% faster; a syscall
// and a pipe), labelled as series labels its builds.
func TestSeriesOfTwoEndsWithVerdict(t *testing.T) {
	out := seriesOfPair(t)
	r := loadPair(t, nil)
	for _, row := range r.Rows {
		if !row.Primary {
			continue
		}
		c := row.Vs[0]
		want := row.Workload + ":" + row.Params + " " + row.Metric.Name + ": 6.1.0-56-cloud-amd64 vs 6.1.0-55-cloud-amd64: " + Pct(c.Change) + " " + Interval(c.CI) + " " + PValue(c.P) + " " + verdictLine(c)
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("series does not end %s with compare's verdict %q:\n%s", row.Workload, want, out)
		}
	}
	if !strings.Contains(out, "improved") {
		t.Errorf("no verdict of the 38%% faster fix:\n%s", out)
	}
}
