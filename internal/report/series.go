package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// WriteSeries is kdelta series' ending: the history of each workload
// across the builds, in version order, with its change points, and for
// each step the two builds on either side and what differs between their
// fingerprints (the guests' own), so a step is told from a setup change.
func WriteSeries(w io.Writer, hs []*history.Series, sets []*result.Set, opt stats.ChangePointOptions) error {
	// Each place a series may step is compared once, as kdelta compare
	// would (a series made without options, by compare's defaults): the
	// step's marker and the verdict a series of two ends with print
	// that comparison.
	for _, h := range hs {
		if len(h.Points) > 1 && h.Points[1].Versus == nil {
			h.Judge(sets, compare.Options{})
		}
	}
	if err := WriteHistory(w, hs, opt, "text"); err != nil {
		return err
	}
	byLabel := map[string]*result.Set{}
	for _, s := range sets {
		for _, h := range hs {
			if v, ok := s.Labels[h.By]; ok && byLabel[v] == nil {
				byLabel[v] = s
			}
		}
	}
	for _, h := range hs {
		for _, cp := range h.Steps {
			if cp.Index < 1 || cp.Index >= len(h.Points) {
				continue
			}
			before, after := h.Points[cp.Index-1].Label, h.Points[cp.Index].Label
			fmt.Fprintf(w, "\n%s: the step is between %s and %s\n", h.Key(), before, after)
			a, b := byLabel[before], byLabel[after]
			if a == nil || b == nil || a.Env == nil || b.Env == nil {
				fmt.Fprintln(w, "  (no fingerprint of one side)")
				continue
			}
			lines := compare.EnvDiff(a.Env, b.Env)
			if len(lines) == 0 {
				fmt.Fprintln(w, "  the fingerprints do not differ")
			}
			for _, l := range lines {
				fmt.Fprintln(w, "  "+l)
			}
			if ca, cb := a.Labels["cmdline"], b.Labels["cmdline"]; ca != cb {
				fmt.Fprintf(w, "  ! cmdline: %q -> %q\n", ca, cb)
			}
		}
	}
	for _, h := range hs {
		if line := twoBuilds(h); line != "" {
			fmt.Fprintf(w, "\n%s\n", line)
		}
	}
	return nil
}

// twoBuilds is the verdict between the two builds of a series of two, as
// kdelta compare gives it (a build of several boots is several
// sessions): the comparison the series was judged by (Point.Versus),
// which the step's marker prints too; "" for other series.
func twoBuilds(h *history.Series) string {
	if len(h.Points) != 2 || h.Points[1].Versus == nil || h.Points[1].Versus.Comparison.A.N == 0 {
		return ""
	}
	n := h.Points[1].Versus
	c := n.Comparison
	return fmt.Sprintf("%s %s: %s vs %s: %s %s %s %s", h.Key(), h.Metric.Name, n.After, n.Before,
		Pct(c.Change), Interval(c.CI), PValue(c.P), verdictLine(c))
}
