package compare

import (
	"math"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// Single figures per variant (a pasted table of one value per
// configuration, as seed mail 002's SMT table is) are compared as
// figures: the relative change of one value from the other, with no test,
// no interval and no verdict beyond inconclusive. A test on one value a
// side can never reach any α, and an interval from it would be a claim
// about a spread nobody measured.

// Figures tells whether Vs[i] compares single figures: one value on the
// baseline's side and one on set i+1's, neither a summary.
func (r Row) Figures(i int) bool { return figures(r.Sides[0], r.Sides[i+1]) }

func figures(a, b Side) bool {
	return !a.FromSummary && !b.FromSummary && len(a.Values) == 1 && len(b.Values) == 1
}

// compareFigures compares the single figures of a and b: Change is
// b/a − 1; P and the interval are NaN (no test was made); the verdict is
// inconclusive with no count of runs, since one more value a side cannot
// make a test either.
func compareFigures(a, b Side, opt stats.Options) stats.Comparison {
	c := stats.Comparison{
		// The options as a test would have used them, defaults filled in.
		A: a.Summary, B: b.Summary, Options: stats.Compare(a.Values, b.Values, opt).Options,
		Change:  math.NaN(),
		P:       math.NaN(),
		CI:      [2]float64{math.NaN(), math.NaN()},
		Verdict: stats.Inconclusive,
	}
	if x, y := a.Values[0], b.Values[0]; x != 0 && !math.IsNaN(x) && !math.IsNaN(y) {
		c.Change = y/x - 1
		c.Centres, c.Centre = [2]float64{x, y}, stats.CentreValues
	}
	return c
}

// Claim returns what the source of side i of row said of its change (an
// imported table's derived column, "31.61% faster") and what it said it
// relative to (without-patch), from the run's info; "" when it said
// nothing.
func (r *Result) Claim(row Row, i int) (claim, vs string) {
	if len(r.Inputs) <= i {
		return "", ""
	}
	base := r.Inputs[0].Set
	for _, bb := range base.Benchmarks {
		if bb.Workload != row.Workload || result.FormatParams(bb.Params) != row.Params {
			continue
		}
		b := bb
		if i > 0 {
			b = match(bb, base, r.Inputs[i].Set)
		}
		if b == nil {
			return "", ""
		}
		if runs := b.Measured(); len(runs) == 1 && runs[0].Info["claim"] != "" {
			return runs[0].Info["claim"], runs[0].Info["claim-vs"]
		}
	}
	return "", ""
}
