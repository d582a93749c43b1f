package vm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
)

// An Until is --until-conclusive of kdelta vm and kdelta series: after
// the first Options.Boots rounds, each variant that a question is still
// open for boots once more, in the variants' order, and the questions are
// asked again, until every one is settled or its variants have had
// MaxBoots boots each.
//
// kdelta vm's questions are its comparison's (Compare): each variant
// against the first on each benchmark's primary metric
// (compare.VersusFirst). kdelta series' are the places its series may
// step, each pair of neighbouring builds (history.Neighbour). Either way
// a question is kdelta's one compare.Question, settled and open as its
// Settled and Open say: its verdict, kdelta compare's over the variants'
// boots under the host's session noise (Noise) or the prior, is
// improved, regressed, or ~ where no change point says otherwise. Each
// boot is a session, and variants booted apart are compared over their
// sessions (stats.CompareSessions): one boot a side cannot tell a change
// from two boots' own states, so a question needs MinBoots boots of each
// of its variants at least (Question.MinSessions).
type Until struct {
	// On is --until-conclusive.
	On bool
	// MaxBoots is --max-boots: the boots of each variant at most, its
	// first Options.Boots included, so that at most MaxBoots times the
	// variants' count boot in all.
	MaxBoots int
	// Compare are the options of the verdicts (--alpha; the noise band
	// is kdelta compare's 1%).
	Compare stats.Options
	// Noise gives the host's session noise of a benchmark's metric, as
	// compare.Options.Noise (kdelta calibrate's, or learned in the
	// store); nil knows none, and the prior for the kind of machine
	// stands in. The verdicts the boots wait on and the comparison the
	// command prints both take it (CompareOptions), so they agree.
	Noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise
	// Stops, after a run that ended by the rule, say why the boots
	// stopped: one per question.
	Stops []BootStop
}

// CompareOptions are the options of every comparison of the variants:
// the rule's questions and the comparison printed at the end.
func (u *Until) CompareOptions() compare.Options {
	return compare.Options{Stats: u.Compare, Noise: u.Noise}
}

// DefaultMaxBoots is --max-boots' default.
const DefaultMaxBoots = 10

// MinBoots is the boots of each variant that a verdict between variants
// booted apart needs at least: with no session noise known, a test over
// sessions needs two of each side to measure their spread.
const MinBoots = 2

// check checks u against the boots and the count of variants asked for
// (0 when not known yet: a job file the lab's agent reads), naming the
// flag that is wrong: --max-boots and --alpha go with --until-conclusive
// only (given tells which flags were given; nil: none was), which needs
// two variants, and --max-boots is at least MinBoots and --boots.
func (u *Until) check(boots, variants int, given func(string) bool) error {
	if !u.On {
		for _, f := range []string{"max-boots", "alpha"} {
			if given != nil && given(f) {
				return fmt.Errorf("--%s: only with --until-conclusive", f)
			}
		}
		return nil
	}
	if u.MaxBoots < MinBoots {
		return fmt.Errorf("--max-boots: %d can never be conclusive: variants booted apart need %d boots each at least (one boot a side cannot tell a change from two boots' own states)", u.MaxBoots, MinBoots)
	}
	if u.MaxBoots < boots {
		return fmt.Errorf("--max-boots: %d is fewer than --boots %d", u.MaxBoots, boots)
	}
	if err := u.Compare.Validate(); err != nil {
		return fmt.Errorf("--alpha: %w", err)
	}
	if variants == 1 {
		return errors.New("--until-conclusive: one variant, nothing to compare it with: give two --kernel or --append")
	}
	return nil
}

// CheckUntil checks the --until-conclusive flags of cl as Run will,
// before anything is inspected or booted: kdelta submit checks a lab's vm
// job with it before queueing it for an agent whose kernels it cannot
// see.
func (o *Options) CheckUntil(cl CommandLine) error {
	variants := 0 // a job file's are the agent's to read
	if cl.File == "" {
		vs, err := pairVariants(cl.Kernels, cl.Appends)
		if err != nil {
			return err
		}
		variants = len(vs)
	}
	return o.Until.check(o.Boots, variants, cl.Given)
}

// A question is one comparison --until-conclusive waits on, variant
// q.Candidate against variant q.Baseline (by index), and the labels of
// the two as the stop line names them.
type question struct {
	compare.Question
	before, after string
}

// versusFirst are kdelta vm's questions: each variant against the first
// on each benchmark's primary metric (compare.VersusFirst), as the
// comparison the command ends with (Compare) judges them, benchmark by
// benchmark in the first variant's order.
func versusFirst(opt compare.Options) func([]*result.Set) []question {
	return func(sets []*result.Set) []question {
		if len(sets) < 2 || sets[0] == nil {
			return nil
		}
		ask := compare.Asking{Metric: compare.PrimaryMetric, MinSessions: MinBoots}
		var qs []question
		for _, q := range compare.VersusFirst(sets, opt, ask) {
			if q.Comparison.A.N == 0 {
				continue // not compared: no row of the comparison
			}
			qs = append(qs, question{Question: q, before: sets[0].Labels["variant"], after: sets[q.Candidate].Labels["variant"]})
		}
		order := map[string]int{}
		for i, b := range sets[0].Benchmarks {
			order[b.Key()] = i
		}
		slices.SortStableFunc(qs, func(x, y question) int { return order[x.Key] - order[y.Key] })
		return qs
	}
}

// untilBoots is the runner.Executor of kdelta vm and series: its first
// batch is Options.Boots rounds of every variant (A B A B ...), each
// later one a boot of each variant the stopping rule asks runs of, in
// the variants' order.
type untilBoots struct {
	s *session
	u *Until
	// questions are what the boots of sets wait on.
	questions func(sets []*result.Set) []question
	// booted, when not nil, is called after each boot of variant vi.
	booted func(vi int)
}

// schedule boots the variants as the session's options say, by
// runner.Schedule: a boot brings Job.Repeat runs of every benchmark, so
// boots are counted in runs of Repeat. When the boots ended by the rule,
// Until.Stops say why.
func (x *untilBoots) schedule(ctx context.Context) error {
	opt := x.s.opt
	per := max(opt.Job.Repeat, 1)
	var until runner.Until
	if x.u.On {
		until = runner.Until{Batch: per, MaxRuns: x.u.MaxBoots * per, MoreOf: x.open}
	}
	if err := runner.Schedule(ctx, x, 0, opt.Boots*per, until); err != nil {
		return err
	}
	if x.u.On {
		x.u.Stops = x.stops(x.s.sets)
	}
	return nil
}

func (x *untilBoots) Sets() []*result.Set { return x.s.sets }

func (x *untilBoots) Run(ctx context.Context, b runner.Batch) error {
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
		// A variant at --max-boots boots no more, whatever its runs:
		// the stopping rule then sees it bring none.
		if vi < len(x.s.vars) && hasRuns(runs) && x.s.boots[vi] < x.u.MaxBoots {
			if err := x.boot(ctx, vi); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *untilBoots) boot(ctx context.Context, vi int) error {
	if err := x.s.boot(ctx, vi); err != nil {
		return err
	}
	if x.booted != nil {
		x.booted(vi)
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
// benchmark of a variant is open while a question of it is not clear.
func (x *untilBoots) open(sets []*result.Set) [][]bool {
	unclear := map[string]bool{} // benchmark key + "\x00" + variant index
	for _, q := range x.questions(sets) {
		// A verdict over fewer than MinBoots boots a side stays open
		// whatever it says (Question.MinSessions): under a prior
		// session noise (issue 34) one boot each can be judged, but two
		// boots' own states, under TCG most of all, are not what the
		// prior was measured on.
		if q.Open() {
			unclear[fmt.Sprintf("%s\x00%d", q.Key, q.Baseline)] = true
			unclear[fmt.Sprintf("%s\x00%d", q.Key, q.Candidate)] = true
		}
	}
	out := make([][]bool, len(sets))
	for si, s := range sets {
		for _, b := range s.Benchmarks {
			out[si] = append(out[si], unclear[fmt.Sprintf("%s\x00%d", b.Key(), si)])
		}
	}
	return out
}

// A BootStop is why the boots of one question stopped: the question
// (its benchmark, the verdict between the two variants), the variants'
// labels, the boots of each, and whether it is settled, or reached
// MaxBoots (--max-boots) unsettled.
type BootStop struct {
	compare.Question
	Before, After string
	Boots         [2]int
	Clear         bool
	AtMax         bool
	MaxBoots      int
}

// stops says, for each question, whether it is clear and after how many
// boots, or that it stayed unclear and why.
func (x *untilBoots) stops(sets []*result.Set) []BootStop {
	var out []BootStop
	for _, q := range x.questions(sets) {
		ba, bb := x.s.boots[q.Baseline], x.s.boots[q.Candidate]
		out = append(out, BootStop{Question: q.Question, Before: q.before, After: q.after, Boots: [2]int{ba, bb},
			Clear: q.Settled(), AtMax: max(ba, bb) >= x.u.MaxBoots, MaxBoots: x.u.MaxBoots})
	}
	return out
}
