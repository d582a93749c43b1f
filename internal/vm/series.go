package vm

import (
	"context"
	"errors"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// kdelta series orders its builds by their kernel label, or, where two
// variants boot the same kernel (one image with two command lines), by the
// label build: the kernel with the variant's letter after it,
// "6.1.0-57-cloud-amd64 (B)", so that each variant is a point of its own.
const buildLabel = "build"

// A Series is kdelta series: after Run, what its boots found. How they
// end is Options.Until's: with Until.On, the builds on either side of a
// place its series may step that is not settled yet (compare.Question)
// boot again, in turn, until every place is clear or its builds have had
// Until.MaxBoots boots each.
type Series struct {
	// After Run: a set per build, the history of each workload across
	// them, and, until conclusive, why the boots stopped, a line per
	// place a series may step.
	Sets    []*result.Set
	History []*history.Series
	Stops   []BootStop
	// ChangePoints are the options the history's change points were
	// found with: stats' defaults.
	ChangePoints stats.ChangePointOptions
	by           string // the label the history is by
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
	s, err := startSession(opt)
	if err != nil {
		return nil, err
	}
	defer s.close()
	names := buildNames(s.vars)
	sr.by = "kernel"
	for i, v := range s.vars {
		if names[i] != v.kernel.Release {
			sr.by = buildLabel
		}
	}
	x := &untilBoots{s: s, u: &opt.Until, questions: sr.places(opt.Until.CompareOptions())}
	if sr.by == buildLabel {
		x.booted = func(vi int) { s.sets[vi].Labels[buildLabel] = names[vi] }
	}
	runErr := x.schedule(ctx)
	sr.Sets = s.sets
	if runErr != nil {
		sr.Sets = finished(s.sets)
	}
	sr.ChangePoints = stats.DefaultChangePointOptions()
	if sr.History, err = history.Across(sr.Sets, sr.by, sr.ChangePoints); err != nil {
		return sr.Sets, errors.Join(runErr, err)
	}
	// Each place a series may step is compared once: the step's marker
	// in the history and its step line print this comparison.
	for _, h := range sr.History {
		h.Judge(sr.Sets, opt.Until.CompareOptions())
	}
	if opt.Until.On && runErr == nil {
		sr.Stops = opt.Until.Stops
	}
	return sr.Sets, runErr
}

// places are kdelta series' questions: each place each workload's series
// may step, two neighbouring builds and kdelta compare's verdict between
// them under opt.
func (sr *Series) places(opt compare.Options) func([]*result.Set) []question {
	return func(sets []*result.Set) []question {
		hs, err := history.Across(sets, sr.by, stats.DefaultChangePointOptions())
		if err != nil {
			return nil
		}
		at := map[string]int{} // a build's variant, by its point's label
		for vi, set := range sets {
			if set != nil {
				at[set.Labels[sr.by]] = vi
			}
		}
		var qs []question
		for _, h := range hs {
			bench := strings.TrimSpace(h.Workload + " " + result.FormatParams(h.Params))
			for _, n := range h.Neighbours(sets, opt) {
				q := question{Question: n.Question(MinBoots), before: n.Before, after: n.After}
				q.Key, q.Bench, q.Metric = h.Key(), bench, h.Metric.Name
				q.Baseline, q.Candidate = at[n.Before], at[n.After]
				qs = append(qs, q)
			}
		}
		return qs
	}
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
		if n := commitPoint(i, v); n != "" {
			names[i] = n
		}
	}
	return names
}
