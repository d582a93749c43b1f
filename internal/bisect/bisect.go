// Package bisect is the judge of kdelta bisect-run: whether the benchmarks
// measured on a commit are good or bad against the result sets of a good
// commit (and of a bad one), and the evidence each decision rests on. It
// takes its options and result sets as values and returns decisions, so
// that it is tested without a command line; running the benchmarks and
// the exit status are the caller's.
package bisect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/workload"
)

// The decisions, also recorded as the label bisect=.
const (
	Good = "good"
	Bad  = "bad"
	Skip = "skip"
)

// Options say what the judge compares measured benchmarks with, and how.
type Options struct {
	// Good is the result set of a good commit; Bad, when not nil, that
	// of a bad one.
	Good, Bad *result.Set
	// GoodRef and BadRef are what the user named them by, for messages.
	GoodRef, BadRef string
	// Metric is the metric that decides; "" for each benchmark's first.
	Metric string
	// Compare holds α, the noise band and the test of every comparison.
	Compare compare.Options
	// Noise finds the host's session noise of a benchmark's metric, as
	// the store learned it (kdelta calibrate, A/A twins); nil knows none.
	// A step and the good set are two sessions, compared across sessions
	// with the noise known, else with the prior one the verdict names
	// (Compare.SessionNoise, --session-noise, replaces both).
	Noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise
}

// A Judge decides whether measured benchmarks are good or bad.
type Judge struct {
	opt Options
	// warnings found while judging, each said once.
	warnings []Warning
}

// A Warning is what judging found worth saying: Text, or, when NotWorse
// is set, that the bad set is not worse than good on Bench's Metric (the
// comparison of bad with good), so that good alone decides.
type Warning struct {
	Text          string
	Bench, Metric string
	NotWorse      *stats.Comparison
}

// New returns a judge under opt.
func New(opt Options) *Judge { return &Judge{opt: opt} }

// Warnings are what judging found worth saying, each once, in the order
// found: a counterpart matched by a fallback, a bad set no worse than
// good.
func (j *Judge) Warnings() []Warning { return j.warnings }

// Check fails, before anything runs, when a workload of specs cannot be
// judged: it has no metric Options.Metric, or no counterpart in the good
// (or bad) set.
func (j *Judge) Check(specs []workload.Spec) error {
	for _, sp := range specs {
		b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values), Metrics: workload.MetricsOf(sp)}
		if _, err := MetricOf(b, j.opt.Metric); err != nil {
			return fmt.Errorf("--metric: %w", err)
		}
		if _, _, err := Counterpart(b, len(specs), j.opt.Good); err != nil {
			return fmt.Errorf("--good %s: %w", j.opt.GoodRef, err)
		}
		if j.opt.Bad != nil {
			if _, _, err := Counterpart(b, len(specs), j.opt.Bad); err != nil {
				return fmt.Errorf("--bad %s: %w", j.opt.BadRef, err)
			}
		}
	}
	return nil
}

// MetricOf returns the metric of b named metric, or b's first when metric
// is "".
func MetricOf(b *result.Benchmark, metric string) (result.Metric, error) {
	if metric == "" {
		if len(b.Metrics) == 0 {
			return result.Metric{}, fmt.Errorf("%s has no metrics", b.Key())
		}
		return b.Metrics[0], nil
	}
	var names []string
	for _, m := range b.Metrics {
		if m.Name == metric {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return result.Metric{}, fmt.Errorf("workload %s has no metric %q (it has %s)", b.Workload, metric, strings.Join(names, ", "))
}

// pairing is how a measured benchmark finds its reference's: kdelta
// compare's rule (compare.Pair), loosened as a reference allows. The only
// benchmark of the workload in the reference will do whatever its
// parameters, and a single benchmark measured pairs with a reference's
// single benchmark imported from another tool (its workload is none of
// kdelta's): an imported stress-ng result against a command workload that
// runs stress-ng.
var pairing = compare.Pairing{
	AnyParams: true,
	Foreign: func(w string) bool {
		_, ours := workload.Lookup(w)
		return !ours
	},
}

// Counterpart finds b's benchmark in ref, b being one of measured
// benchmarks, by the pairing of bisect-run. The note says which fallback
// matched, if one did; the error lists what ref holds when nothing
// matches.
func Counterpart(b *result.Benchmark, measured int, ref *result.Set) (*result.Benchmark, string, error) {
	if o, note := compare.Pair(b, measured, ref.Benchmarks, pairing); o != nil {
		return o, note, nil
	}
	var keys []string
	for _, o := range ref.Benchmarks {
		keys = append(keys, o.Key())
	}
	return nil, "", fmt.Errorf("no benchmark matches %s (it has %s)", b.Key(), strings.Join(keys, "; "))
}

// compareWith compares b's metric m, of set, with its counterpart in
// ref, the baseline, as kdelta compare compares them.
func (j *Judge) compareWith(ref *result.Set, set *result.Set, b *result.Benchmark, measured int, m result.Metric) (stats.Comparison, error) {
	o, note, err := Counterpart(b, measured, ref)
	if err != nil {
		return stats.Comparison{}, err
	}
	if note != "" {
		j.warn(Warning{Text: note})
	}
	return j.across(ref, o, set, b, m.Name)
}

// across compares the good set's base with b, of set, as acrossSessions
// does.
func (j *Judge) across(baseSet *result.Set, base *result.Benchmark, set *result.Set, b *result.Benchmark, metric string) (stats.Comparison, error) {
	return acrossSessions(j.opt.Compare, j.opt.Noise, baseSet, base, set, b, metric)
}

// acrossSessions compares metric of b (of set) with base (of baseSet),
// two sessions, under opt, as kdelta compare compares them: with the
// host's session noise when noise (nil: none) knows it, else the prior
// session noise for the kind of machine, which the verdict names
// (compare.Prior), or the figure of opt.SessionNoise.
func acrossSessions(opt compare.Options, noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise,
	baseSet *result.Set, base *result.Benchmark, set *result.Set, b *result.Benchmark, metric string) (stats.Comparison, error) {
	opt.Noise = noise
	return compare.MetricIn(baseSet, base, set, b, metric, opt)
}

func (j *Judge) warn(w Warning) {
	same := func(o Warning) bool { return o.Text == w.Text && o.Bench == w.Bench && o.Metric == w.Metric }
	if !slices.ContainsFunc(j.warnings, same) {
		j.warnings = append(j.warnings, w)
	}
}

// An Evidence is the decision on one benchmark and what it rests on.
type Evidence struct {
	Bench  string // workload and parameters
	Metric result.Metric
	Runs   int // measured runs
	// VsGood compares the measured runs with the good set (it holds no
	// runs of good when they were not compared); Step compares the bad
	// set with the good one, when there is a bad set worse than good.
	VsGood stats.Comparison
	Step   *stats.Comparison
	// Decision is Good, Bad, or "" (cannot tell yet); Reason says why,
	// and Why, when the benchmark was not compared (NotCompared), says
	// what stopped it.
	Decision string
	Reason   Reason
	Why      string
	// Midpoint is the change from good halfway to bad on the log scale
	// (the geometric midpoint of the two levels), with Step.
	Midpoint float64
}

// Question is e's question (compare.Question): the measured runs against
// good, asked Toward bad when there is a bad set worse than good.
func (e Evidence) Question() compare.Question {
	return compare.Question{Comparison: e.VsGood, Toward: e.Step, Metric: e.Metric.Name, Better: e.Metric.Better}
}

// Evidence decides every benchmark of set, the runs measured so far.
func (j *Judge) Evidence(set *result.Set) []Evidence {
	var evs []Evidence
	for _, b := range set.Benchmarks {
		evs = append(evs, j.weigh(set, b, len(set.Benchmarks)))
	}
	return evs
}

// weigh decides b, one of the measured benchmarks of set.
func (j *Judge) weigh(set *result.Set, b *result.Benchmark, measured int) Evidence {
	e := Evidence{Bench: strings.TrimSpace(b.Workload + " " + result.FormatParams(b.Params)), Runs: len(b.Measured())}
	m, err := MetricOf(b, j.opt.Metric)
	if err != nil {
		e.Why = err.Error()
		return e
	}
	e.Metric = m
	if b.Skipped != "" {
		e.Why = "skipped: " + b.Skipped
		return e
	}
	if len(b.Values(m.Name)) == 0 {
		e.Why = "no measured values"
		if rs := b.Runs; len(rs) > 0 && rs[len(rs)-1].Reason != "" {
			e.Why += ": " + rs[len(rs)-1].Reason
		}
		return e
	}
	if e.VsGood, err = j.compareWith(j.opt.Good, set, b, measured, m); err != nil {
		e.Why = "against good: " + err.Error()
		return e
	}
	if j.opt.Bad != nil {
		e.Step = j.badStep(b, measured, m)
	}
	e.Decision, e.Reason = decide(e.VsGood, e.Step, m)
	if e.Step != nil {
		e.Midpoint = midpoint(*e.Step)
	}
	return e
}

// badStep compares the bad set with the good one on b's metric m, and
// returns the comparison when bad is worse than good, which the midpoint
// rule needs; otherwise it warns and returns nil, and good alone decides.
func (j *Judge) badStep(b *result.Benchmark, measured int, m result.Metric) *stats.Comparison {
	gb, _, err := Counterpart(b, measured, j.opt.Good)
	if err != nil {
		return nil
	}
	bb, _, err := Counterpart(b, measured, j.opt.Bad)
	if err != nil {
		j.warn(Warning{Text: fmt.Sprintf("%s: not in the bad set: good alone decides", b.Key())})
		return nil
	}
	step, err := j.across(j.opt.Good, gb, j.opt.Bad, bb, m.Name)
	if err != nil {
		j.warn(Warning{Text: fmt.Sprintf("%s: bad against good: %v: good alone decides", b.Key(), err)})
		return nil
	}
	if step.Verdict != stats.Regressed {
		j.warn(Warning{Bench: b.Key(), Metric: m.Name, NotWorse: &step})
		return nil
	}
	return &step
}

// Decision is the answer for the commit from the evidence on each of its
// benchmarks: Bad when any is bad, Good when every one is good, Skip
// (cannot tell) otherwise.
func Decision(evs []Evidence) string {
	switch {
	case anyDecision(evs, Bad):
		return Bad
	case !anyDecision(evs, ""):
		return Good
	}
	return Skip
}

func anyDecision(evs []Evidence, d string) bool {
	return slices.ContainsFunc(evs, func(e Evidence) bool { return e.Decision == d })
}

// Specs parses the --workload arguments or, without any, rebuilds the
// workloads of the good set from their names and parameters; ref is what
// the user named the good set by.
func Specs(args []string, good *result.Set, ref string) ([]workload.Spec, error) {
	var specs []workload.Spec
	for _, a := range args {
		sp, err := workload.ParseSpec(a)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		specs = append(specs, sp)
	}
	if len(specs) > 0 {
		return specs, nil
	}
	for _, b := range good.Benchmarks {
		w, ok := workload.Lookup(b.Workload)
		if !ok {
			return nil, fmt.Errorf("--good %s: workload %q is not one kdelta runs; name what to measure with --workload", ref, b.Workload)
		}
		vals, err := workload.Resolve(w, b.Params)
		if err != nil {
			return nil, fmt.Errorf("--good %s: %w; name what to measure with --workload", ref, err)
		}
		specs = append(specs, workload.Spec{Workload: w, Values: vals})
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("--good %s: no workloads in the set", ref)
	}
	return specs, nil
}
