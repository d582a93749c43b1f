package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/vm"
)

// BootStops say why the boots of kdelta vm and kdelta series
// --until-conclusive stopped, a line per question: clear, or unclear
// after the boots each variant had, or at --max-boots.
func BootStops(stops []vm.BootStop) []string {
	var lines []string
	for _, s := range stops {
		ba, bb := s.Boots[0], s.Boots[1]
		each := fmt.Sprintf("%d boots each", ba)
		switch {
		case ba != bb:
			each = fmt.Sprintf("%d and %d boots", ba, bb)
		case ba == 1:
			each = "1 boot each"
		}
		var why string
		switch {
		case s.Clear:
			why = "clear after " + each + ": " + bootsVerdict(s.Question)
		case s.AtMax:
			why = fmt.Sprintf("reached --max-boots %d: %s", s.MaxBoots, bootsVerdict(s.Question))
		default:
			why = "unclear after " + each + ": " + bootsVerdict(s.Question)
		}
		lines = append(lines, fmt.Sprintf("until-conclusive: %s: %s -> %s: %s", s.Bench, s.Before, s.After, why))
	}
	return lines
}

// bootsVerdict is a question's verdict as kdelta compare says it, the
// sessions it counts called boots, with the change and its interval.
func bootsVerdict(n compare.Question) string {
	c := n.Comparison
	if c.A.N == 0 {
		return "not compared: " + n.Why
	}
	v := VerdictText(c)
	if c.Verdict == stats.Inconclusive && c.NeedSessions > 0 {
		v = fmt.Sprintf("inconclusive (need ≈%d boots)", c.NeedSessions)
	}
	if n.Step != nil && c.Verdict == stats.NoChange {
		v += fmt.Sprintf(", where the change points put a step of %s", Pct(n.Step.Change))
	}
	return fmt.Sprintf("%s (%s %s %s)", v, Pct(c.Change), Interval(c.CI), PValue(c.P))
}

// WriteSeriesRun writes the end of kdelta series: the history of each
// workload across the builds with its steps (WriteSeries), and why the
// boots stopped.
func WriteSeriesRun(w io.Writer, sr *vm.Series) error {
	if err := WriteSeries(w, sr.History, sr.Sets, sr.ChangePoints); err != nil {
		return err
	}
	for _, l := range BootStops(sr.Stops) {
		fmt.Fprintln(w, l)
	}
	return nil
}

// WriteCommitSteps writes, after a series of commits kdelta built, a line
// per step of each workload's history naming the commit after the step:
// its hash and subject, the change of the figure against the commit
// before it with its confidence interval and verdict, and the design of
// that comparison (boots a side, runs a side).
func WriteCommitSteps(w io.Writer, steps []vm.CommitStep) {
	for _, s := range steps {
		c := s.Comparison
		line := fmt.Sprintf("step at commit %.12s (%s): %s %s", s.Commit, s.Subject, s.Bench, s.Metric)
		if c.A.N == 0 {
			line += fmt.Sprintf(" %+.1f%% (change point) against %.12s; not compared: %s", 100*s.Step.Change, s.Before, s.Why)
		} else {
			line += fmt.Sprintf(" %+.1f%% [%+.1f%%, %+.1f%%] against %.12s (%s), %s; design: %d and %d boots, %d and %d runs",
				100*c.Change, 100*c.CI[0], 100*c.CI[1], s.Before, s.BeforeSubject, VerdictText(c),
				c.Design.Sessions[0], c.Design.Sessions[1], c.Design.Runs[0], c.Design.Runs[1])
			if c.Design.NoiseUnknown {
				line += ", session noise unknown"
			}
		}
		fmt.Fprintln(w, line)
	}
}
