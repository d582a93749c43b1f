package history

import (
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// A Neighbour is one place a series may step: two neighbouring points
// and kdelta compare's verdict between them.
type Neighbour struct {
	// Before and After are the points' labels, in series order.
	Before, After string
	// Step is the change point the series has between them, nil for none.
	Step *stats.ChangePoint
	// Comparison is After against Before, Before the baseline, on the
	// series' metric, their runs grouped by the sessions (boots) they
	// came from; A.N is 0 when they could not be compared, and Why says
	// why.
	Comparison stats.Comparison
	Why        string
}

// Question is the place as kdelta's one question (compare.Question):
// whether the series steps there is settled as Question.Settled says,
// the change point making a ~ not enough. minSessions is the sessions
// (boots) each point needs at least (Question.MinSessions).
func (n Neighbour) Question(minSessions int) compare.Question {
	return compare.Question{Comparison: n.Comparison, Why: n.Why, Step: n.Step, MinSessions: minSessions}
}

// Neighbours compares each point of s with the one before it, as kdelta
// compare compares two sets under opt (with the host's session noise,
// opt.Noise, else the prior): the runs of every set of a point
// (sets holds them, by id) are one side, grouped by their sessions, so
// that points measured over several boots each are compared over their
// boots.
func (s *Series) Neighbours(sets []*result.Set, opt compare.Options) []Neighbour {
	byID := map[string]*result.Set{}
	for _, set := range sets {
		byID[set.ID] = set
	}
	var out []Neighbour
	for i := 1; i < len(s.Points); i++ {
		p, q := s.Points[i-1], s.Points[i]
		n := Neighbour{Before: p.Label, After: q.Label, Step: q.Step}
		a, b := s.benchmarkOf(p, byID), s.benchmarkOf(q, byID)
		switch {
		case a == nil || b == nil:
			n.Why = "no runs of " + s.Key() + " on one side"
		default:
			// The points' first sets tell the kind of machine, for
			// the prior session noise of a point of one boot.
			c, err := compare.MetricIn(firstSet(p, byID), a, firstSet(q, byID), b, s.Metric.Name, opt)
			if err != nil {
				n.Why = err.Error()
			}
			// A point measured under TCG (any of its sets) is not the
			// hardware's timing, and its verdict says so.
			c.Emulated = c.Emulated || emulated(p, byID) || emulated(q, byID)
			n.Comparison = c
		}
		out = append(out, n)
	}
	return out
}

// benchmarkOf is the series' benchmark at point p: the matching
// benchmark of p's sets, with the runs of all of them. Where the point
// holds several sets, each is a session of it (a run already in a
// session of its own keeps it, within its set's), as a label query's sets
// are (resolve.Sessions).
func (s *Series) benchmarkOf(p Point, byID map[string]*result.Set) *result.Benchmark {
	var out *result.Benchmark
	several := len(p.Sets) > 1
	for _, id := range p.Sets {
		set := byID[id]
		if set == nil {
			continue
		}
		for _, b := range set.Benchmarks {
			if b.Key() != s.Key() {
				continue
			}
			runs := b.Runs
			if several {
				runs = make([]*result.Run, len(b.Runs))
				for i, r := range b.Runs {
					c := *r
					c.Session = set.ID
					if r.Session != "" && r.Session != set.ID {
						c.Session = set.ID + "/" + r.Session
					}
					runs[i] = &c
				}
			}
			if out == nil {
				c := *b
				c.Runs = append([]*result.Run(nil), runs...)
				out = &c
			} else {
				out.Runs = append(out.Runs, runs...)
			}
		}
	}
	return out
}

// firstSet is the first of p's sets that sets holds, nil for none.
func firstSet(p Point, byID map[string]*result.Set) *result.Set {
	for _, id := range p.Sets {
		if set := byID[id]; set != nil {
			return set
		}
	}
	return nil
}

// Judge compares each point of s with the one before it (Neighbours,
// under opt) and keeps each comparison on its point (Point.Versus), so
// that whatever prints a step prints this one comparison of it.
func (s *Series) Judge(sets []*result.Set, opt compare.Options) {
	for i, n := range s.Neighbours(sets, opt) {
		s.Points[i+1].Versus = &n
	}
}

// emulated tells whether any set of p that sets holds was measured under
// TCG emulation (compare.Emulated).
func emulated(p Point, byID map[string]*result.Set) bool {
	for _, id := range p.Sets {
		if compare.Emulated(byID[id]) {
			return true
		}
	}
	return false
}
