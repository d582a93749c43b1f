package bisect

import (
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

// StepOptions say what one step of a bisection (kdelta bisect-run)
// measures on the commit at hand and how: the judge's options, the
// workloads, and the runs.
type StepOptions struct {
	Options
	// Workloads are the --workload specs; none measures the workloads of
	// the good set.
	Workloads []string
	// Repeat is the measured runs per workload first, and per batch added
	// while the judge cannot tell; MaxRuns caps them; Warmup is the
	// warm-up runs per workload.
	Repeat, MaxRuns, Warmup int
}

// Check checks the options that need no result set, naming the flag that
// is wrong: α and the noise band, and the runs.
func (o *StepOptions) Check() error {
	if err := o.Compare.Stats.Validate(); err != nil {
		return fmt.Errorf("--alpha: %w", err)
	}
	if o.Repeat < 1 {
		return fmt.Errorf("-r/--repeat: must be at least 1, got %d", o.Repeat)
	}
	if o.MaxRuns < o.Repeat {
		return fmt.Errorf("--max-runs: %d is fewer than -r %d", o.MaxRuns, o.Repeat)
	}
	if o.Warmup < 0 {
		return fmt.Errorf("--warmup: must not be negative, got %d", o.Warmup)
	}
	return nil
}

// A Step is one step of a bisection: the workloads to measure, the judge
// of their runs, and the rule for adding runs until it can tell.
type Step struct {
	opt   StepOptions
	judge *Judge
	specs []workload.Spec
}

// NewStep returns the step of opt, whose Good set is given, with its
// workloads (Specs) checked before anything runs: each has the metric
// that decides and a counterpart in the good (and bad) set.
func NewStep(opt StepOptions) (*Step, error) {
	specs, err := Specs(opt.Workloads, opt.Good, opt.GoodRef)
	if err != nil {
		return nil, err
	}
	j := New(opt.Options)
	if err := j.Check(specs); err != nil {
		return nil, err
	}
	return &Step{opt: opt, judge: j, specs: specs}, nil
}

// CheckConditions fails when conds, the run conditions the step would
// measure under, differ from those of the good (or bad) set in any that
// both record: a difference of placement, policy, shield, warm-up or
// kdelta would be judged as the commit's. bisect-run answers 125 then,
// before anything runs, with the reason.
func (s *Step) CheckConditions(conds map[string]string) error {
	for _, ref := range []struct {
		what string
		set  *result.Set
	}{{"good", s.opt.Good}, {"bad", s.opt.Bad}} {
		if ref.set == nil {
			continue
		}
		if ds := result.DiffConditions(ref.set.Conditions, conds); len(ds) > 0 {
			parts := make([]string, len(ds))
			for i, d := range ds {
				parts[i] = d.Name() + ": " + d.A + " (" + ref.what + ") -> " + d.B + " (now)"
			}
			return fmt.Errorf("cannot judge: the run conditions differ from the %s set's — %s; measure as %s was measured", ref.what, strings.Join(parts, "; "), ref.what)
		}
	}
	return nil
}

// Specs are the workloads the step measures.
func (s *Step) Specs() []workload.Spec { return s.specs }

// Prepare readies opt, the runner's options of the step, after
// CheckConditions: its labels get the references the step is judged
// against (Label).
func (s *Step) Prepare(opt *runner.Options) error {
	if err := s.CheckConditions(opt.RunConditions()); err != nil {
		return err
	}
	s.Label(opt.Labels)
	return nil
}

// Label adds to labels, those of the set to measure, the references the
// step is judged against: bisect.good, and bisect.bad with a bad set.
func (s *Step) Label(labels map[string]string) {
	labels["bisect.good"] = s.opt.GoodRef
	if s.opt.BadRef != "" {
		labels["bisect.bad"] = s.opt.BadRef
	}
}

// Until is the step's stopping rule: Repeat more runs at a time of each
// benchmark the judge cannot decide yet, up to MaxRuns.
func (s *Step) Until() runner.Until {
	return runner.Until{Batch: s.opt.Repeat, MaxRuns: s.opt.MaxRuns, More: s.undecided}
}

// undecided reports, for each benchmark of set, that the judge cannot
// decide it yet: its question is not settled (compare.Question.Settled;
// the judge's Decision is "" exactly then). A step measures on while
// undecided, up to --max-runs, whatever the question's Open says: a
// commit left at "cannot tell" early would be skipped in the bisection.
func (s *Step) undecided(set *result.Set) []bool {
	var more []bool
	for _, e := range s.judge.Evidence(set) {
		more = append(more, !e.Question().Settled())
	}
	return more
}

// An Outcome is a step's answer and what it rests on.
type Outcome struct {
	// Decision is Good, Bad or Skip (cannot tell).
	Decision string
	// Evidence is the decision on each benchmark.
	Evidence []Evidence
	// Warnings are the judge's (Judge.Warnings).
	Warnings []Warning
	// MaxRuns is --max-runs, which a benchmark that cannot tell may have
	// reached.
	MaxRuns int
}

// Conclude judges set, the runs measured, and labels it with the
// outcome, bisect=DECISION, so that the store and the file keep it (the
// caller adds the evidence, in words, to its warnings).
func (s *Step) Conclude(set *result.Set) Outcome {
	evs := s.judge.Evidence(set)
	out := Outcome{Decision: Decision(evs), Evidence: evs, Warnings: s.judge.Warnings(), MaxRuns: s.opt.MaxRuns}
	if set.Labels == nil {
		set.Labels = map[string]string{}
	}
	set.Labels["bisect"] = out.Decision
	return out
}
