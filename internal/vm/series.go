package vm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
)

// kdelta series orders its builds by their kernel label, or, where two
// variants boot the same kernel (one image with two command lines), by the
// label build: the kernel with the variant's letter after it,
// "6.1.0-57-cloud-amd64 (B)", so that each variant is a point of its own.
const buildLabel = "build"

// A Series is kdelta series: how its boots end, and, after Run, what they
// found.
type Series struct {
	// UntilConclusive adds boots after the first Options.Boots rounds:
	// one at a time to each build on either side of a place its series
	// may step that is not clear yet (history.Neighbour.Clear), those
	// builds in turn, until every place is clear or its builds have had
	// MaxBoots boots each.
	UntilConclusive bool
	MaxBoots        int
	// Compare are the options of the verdicts between neighbouring
	// builds, kdelta compare's (α 0.05, a 1% noise band).
	Compare stats.Options

	// After Run: a set per build, the history of each workload across
	// them, and, until conclusive, why the boots stopped, a line per
	// place a series may step.
	Sets    []*result.Set
	History []*history.Series
	Stops   []string
	by      string // the label the history is by
}

// DefaultMaxBoots is --max-boots' default.
const DefaultMaxBoots = 10

// check checks the options against opt, naming the flag that is wrong:
// --max-boots and --alpha go with --until-conclusive only (opt.Given
// tells which flags were given), and --max-boots is at least --boots.
func (sr *Series) check(opt *Options) error {
	if !sr.UntilConclusive {
		for _, f := range []string{"max-boots", "alpha"} {
			if opt.Given != nil && opt.Given(f) {
				return fmt.Errorf("--%s: only with --until-conclusive", f)
			}
		}
		return nil
	}
	if sr.MaxBoots < opt.Boots {
		return fmt.Errorf("--max-boots: %d is fewer than --boots %d", sr.MaxBoots, opt.Boots)
	}
	if err := sr.Compare.Validate(); err != nil {
		return fmt.Errorf("--alpha: %w", err)
	}
	return nil
}

// Run boots the variants of opt as builds of a series: opt.Boots rounds
// of every build (A B C A B C ...), then, until conclusive, boots of the
// builds around the places still unclear. It returns the builds' sets,
// keeps them in sr.Sets and the history of each workload across them in
// sr.History. On a failed boot it returns what the builds so far
// brought, their sets incomplete, with the error. A nil Series is kdelta
// vm: its Run is Run.
func (sr *Series) Run(ctx context.Context, opt *Options) ([]*result.Set, error) {
	if sr == nil {
		return Run(ctx, opt)
	}
	if err := sr.check(opt); err != nil {
		return nil, err
	}
	s, err := startSession(opt)
	if err != nil {
		return nil, err
	}
	defer s.close()
	x := &seriesBoots{s: s, sr: sr}
	sr.by, x.names = "kernel", buildNames(s.vars)
	for i, v := range s.vars {
		if x.names[i] != v.kernel.Release {
			sr.by = buildLabel
		}
	}
	// The stopping rule counts runs; a boot brings Repeat runs of every
	// benchmark, so boots are counted in runs of Repeat.
	per := max(opt.Job.Repeat, 1)
	var until runner.Until
	if sr.UntilConclusive {
		until = runner.Until{Batch: per, MaxRuns: sr.MaxBoots * per, MoreOf: x.open}
	}
	runErr := runner.Schedule(ctx, x, 0, opt.Boots*per, until)
	sr.Sets = s.sets
	if runErr != nil {
		sr.Sets = finished(s.sets)
	}
	if sr.History, err = history.Across(sr.Sets, sr.by, report.SeriesChangePoints); err != nil {
		return sr.Sets, errors.Join(runErr, err)
	}
	if sr.UntilConclusive && runErr == nil {
		sr.Stops = x.stops(sr.History)
	}
	return sr.Sets, runErr
}

// Write writes the end of kdelta series: the history of each workload
// across the builds with its steps (report.WriteSeries), and why the
// boots stopped.
func (sr *Series) Write(w io.Writer) error {
	var err error
	if sr.by == "kernel" {
		err = report.WriteSeriesOf(w, sr.Sets)
	} else {
		err = report.WriteSeries(w, sr.History, sr.Sets, report.SeriesChangePoints)
	}
	if err != nil {
		return err
	}
	for _, l := range sr.Stops {
		fmt.Fprintln(w, l)
	}
	return nil
}

// buildNames are the variants' points in the series: each kernel's
// release, with the variant's letter where two variants share one.
func buildNames(vars []*prepared) []string {
	count := map[string]int{}
	for _, v := range vars {
		count[v.kernel.Release]++
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.kernel.Release
		if count[v.kernel.Release] > 1 {
			names[i] += " (" + v.name + ")"
		}
	}
	return names
}

// seriesBoots is the runner.Executor of Series: the first batch is
// Options.Boots rounds of every build, each later one a boot of each
// build the stopping rule asks runs of, in the variants' order.
type seriesBoots struct {
	s     *session
	sr    *Series
	names []string // each build's point in the series
}

func (x *seriesBoots) Sets() []*result.Set { return x.s.sets }

func (x *seriesBoots) Run(ctx context.Context, b runner.Batch) error {
	if b.First() {
		for range x.s.opt.Boots {
			for vi := range x.s.vars {
				if err := x.boot(ctx, vi); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for vi, runs := range b.Runs {
		// A build at --max-boots boots no more, whatever its runs: the
		// stopping rule then sees it bring none.
		if vi < len(x.s.vars) && hasRuns(runs) && x.s.boots[vi] < x.sr.MaxBoots {
			if err := x.boot(ctx, vi); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *seriesBoots) boot(ctx context.Context, vi int) error {
	if err := x.s.boot(ctx, vi); err != nil {
		return err
	}
	if x.sr.by == buildLabel {
		x.s.sets[vi].Labels[buildLabel] = x.names[vi]
	}
	return nil
}

func hasRuns(runs []int) bool {
	for _, n := range runs {
		if n > 0 {
			return true
		}
	}
	return false
}

// open is the question until conclusive asks after each batch: a
// benchmark of a build is open when the build is on either side of a
// place its series may step that is not clear yet.
func (x *seriesBoots) open(sets []*result.Set) [][]bool {
	unclear := map[string]bool{} // benchmark key + "\x00" + build
	hs, err := history.Across(sets, x.sr.by, report.SeriesChangePoints)
	if err != nil {
		return nil
	}
	for _, h := range hs {
		for _, n := range h.Neighbours(sets, x.sr.Compare) {
			if !n.Clear() {
				unclear[h.Key()+"\x00"+n.Before] = true
				unclear[h.Key()+"\x00"+n.After] = true
			}
		}
	}
	out := make([][]bool, len(sets))
	for si, s := range sets {
		for _, b := range s.Benchmarks {
			out[si] = append(out[si], unclear[b.Key()+"\x00"+s.Labels[x.sr.by]])
		}
	}
	return out
}

// stops says, for each place each series may step, whether it is clear
// and after how many boots, or that it stayed unclear and why.
func (x *seriesBoots) stops(hs []*history.Series) []string {
	boots := map[string]int{} // by the point's label
	for vi, set := range x.s.sets {
		if set != nil {
			boots[set.Labels[x.sr.by]] = x.s.boots[vi]
		}
	}
	var lines []string
	for _, h := range hs {
		bench := strings.TrimSpace(h.Workload + " " + result.FormatParams(h.Params))
		for _, n := range h.Neighbours(x.s.sets, x.sr.Compare) {
			nb, na := boots[n.Before], boots[n.After]
			each := fmt.Sprintf("%d boots each", nb)
			if nb != na {
				each = fmt.Sprintf("%d and %d boots", nb, na)
			}
			var why string
			switch {
			case n.Clear():
				why = "clear after " + each + ": " + seriesVerdict(n)
			case max(nb, na) >= x.sr.MaxBoots:
				why = fmt.Sprintf("reached --max-boots %d: %s", x.sr.MaxBoots, seriesVerdict(n))
			default:
				why = "unclear after " + each + ": " + seriesVerdict(n)
			}
			lines = append(lines, fmt.Sprintf("until-conclusive: %s: %s -> %s: %s", bench, n.Before, n.After, why))
		}
	}
	return lines
}

// seriesVerdict is the verdict between neighbours as kdelta compare says
// it, the sessions it counts called boots, with the change and its
// interval.
func seriesVerdict(n history.Neighbour) string {
	c := n.Comparison
	if c.A.N == 0 {
		return "not compared: " + n.Why
	}
	v := report.VerdictText(c)
	if c.Verdict == stats.Inconclusive && c.NeedSessions > 0 {
		v = fmt.Sprintf("inconclusive (need ≈%d boots)", c.NeedSessions)
	}
	if n.Step != nil && c.Verdict == stats.NoChange {
		v += fmt.Sprintf(", where the change points put a step of %s", report.Pct(n.Step.Change))
	}
	return fmt.Sprintf("%s (%s %s %s)", v, report.Pct(c.Change), report.Interval(c.CI), report.PValue(c.P))
}
