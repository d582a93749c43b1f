package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/bisect"
)

// BisectLine is bisect-run's evidence on one benchmark, on one line: the
// decision (good or bad; "" is skip, cannot tell, after --max-runs when
// the benchmark's runs reached it: maxRuns), the benchmark and its
// metric, then the comparison with the good set and the reason or, when
// there was no comparison (VsGood holds no runs of good), the reason
// alone.
func BisectLine(e bisect.Evidence, maxRuns int) string {
	d := e.Decision
	if d == "" {
		d = "skip (cannot tell)"
		if e.Runs >= maxRuns {
			d = fmt.Sprintf("skip (cannot tell after --max-runs %d)", maxRuns)
		}
	}
	why := BisectWhy(e)
	if e.VsGood.A.N == 0 {
		return fmt.Sprintf("%s: %s %s: %s (%d runs)", d, e.Bench, e.Metric.Name, why, e.Runs)
	}
	c := e.VsGood
	// The design judged, when it was one across sessions.
	design := fmt.Sprintf("%d vs %d runs", c.B.N, c.A.N)
	if t := DesignText(c); t != "" && !c.Design.NoiseUnknown {
		design = strings.TrimSuffix(strings.TrimPrefix(t, "("), ")")
	}
	return fmt.Sprintf("%s: %s %s: %s %s %s vs good, %s: %s",
		d, e.Bench, e.Metric.Name, Pct(c.Change), Interval(c.CI), PValue(c.P), design, why)
}

// BisectWhy is why the judge decided e as it did, or could not: the
// verdict against good's noise band without a bad set, or where the
// interval lies against the midpoint of the step to bad with one.
func BisectWhy(e bisect.Evidence) string {
	thr := strings.TrimPrefix(Pct(e.VsGood.Options.Threshold), "+")
	at := func() string {
		return fmt.Sprintf("the midpoint %s of the step to bad (%s)", Pct(e.Midpoint), Pct(e.Step.Change))
	}
	switch e.Reason {
	case bisect.BeyondBand:
		return "regressed from good beyond ±" + thr
	case bisect.WithinBand:
		return "within ±" + thr + " of good"
	case bisect.ImprovedOnGood:
		return "improved on good"
	case bisect.Undecided:
		return VerdictText(e.VsGood) + " against good"
	case bisect.Unbounded:
		return "interval unbounded: " + VerdictText(e.VsGood) + " against good"
	case bisect.CloserToGood:
		return "closer to good: the interval is on good's side of " + at()
	case bisect.CloserToBad:
		return "closer to bad: the interval is on bad's side of " + at()
	case bisect.Straddles:
		return "the interval straddles " + at()
	}
	return e.Why
}

// BisectWarnings are the judge's warnings in words, in the order found.
func BisectWarnings(ws []bisect.Warning) []string {
	var out []string
	for _, w := range ws {
		if s := w.NotWorse; s != nil {
			out = append(out, fmt.Sprintf("%s %s: bad is not worse than good (%s %s, %s): good alone decides",
				w.Bench, w.Metric, Pct(s.Change), Interval(s.CI), VerdictText(*s)))
			continue
		}
		out = append(out, w.Text)
	}
	return out
}

// BisectRecord is what a set measured by bisect-run keeps among its
// warnings: each evidence line after "bisect-run: ", then the judge's
// warnings.
func BisectRecord(out bisect.Outcome) []string {
	var rec []string
	for _, e := range out.Evidence {
		rec = append(rec, "bisect-run: "+BisectLine(e, out.MaxRuns))
	}
	return append(rec, BisectWarnings(out.Warnings)...)
}

// WriteBisectOutcome prints the outcome of a bisect-run step: the judge's
// warnings on errw, then on w the evidence, a line per benchmark, and the
// decision with the exit status that git bisect run reads.
func WriteBisectOutcome(w, errw io.Writer, out bisect.Outcome, code int) {
	for _, warn := range BisectWarnings(out.Warnings) {
		fmt.Fprintf(errw, "kdelta: warning: %s\n", warn)
	}
	for _, e := range out.Evidence {
		fmt.Fprintf(w, "bisect-run: %s\n", BisectLine(e, out.MaxRuns))
	}
	fmt.Fprintf(w, "bisect-run: %s (exit %d)\n", out.Decision, code)
}

// UntilStops says why each benchmark of kdelta run --until-conclusive
// stopped, one line each, as run prints them after its summary.
func UntilStops(stops []bisect.Stop) []string {
	var lines []string
	for _, s := range stops {
		why := s.Why
		if s.A.N > 0 {
			why = VerdictText(s.Comparison)
		}
		switch {
		case s.Conclusive:
			why = fmt.Sprintf("stopped after %d runs: %s", s.Runs, s.Verdict)
		case s.A.N > 0 && s.Runs >= s.MaxRuns:
			why = fmt.Sprintf("reached --max-runs %d: %s", s.MaxRuns, why)
		default:
			why = fmt.Sprintf("stopped after %d runs: %s", s.Runs, why)
		}
		if s.A.N > 0 {
			design := fmt.Sprintf("%d runs", s.A.N)
			if d := DesignText(s.Comparison); d != "" {
				design = strings.TrimSuffix(strings.TrimPrefix(d, "("), ")")
			}
			why += fmt.Sprintf(" (%s %s %s %s vs baseline, %s)", s.Metric, Pct(s.Change), Interval(s.CI), PValue(s.P), design)
		}
		lines = append(lines, fmt.Sprintf("until-conclusive: %s: %s", s.Bench, why))
	}
	return lines
}
