package report

import (
	"github.com/kdelta/kdelta/internal/abtest"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/stats"
)

// SessionOf is what the command shows of the session o ran: each cell's
// name, set and file, the comparison of the variants, the sweep tables of
// a matrix, and, for a session of several cells run until conclusive, how
// it ended.
func SessionOf(r *abtest.Result, o abtest.Options) Session {
	s := Session{Sets: r.Sets, Paths: r.Paths, Compare: r.Compare}
	for _, c := range r.Cells {
		s.Names = append(s.Names, c.Name)
	}
	j := o.Job
	if len(j.Matrix) > 0 {
		s.Sweeps = job.SweepTables(r.Cells, r.Sets, j.Matrix, o.CompareOptions())
		if s.Sweeps == nil {
			s.Sweeps = []job.Sweep{}
		}
	}
	if j.UntilConclusive && len(r.Cells) > 1 && len(r.Sets) > 0 {
		u := &Until{MaxRuns: j.MaxRuns, Pending: r.Pending}
		for _, b := range r.Sets[0].Benchmarks {
			u.Runs = max(u.Runs, len(b.Measured()))
		}
		s.Until = u
	}
	return s
}

// Regressions lists what regressed: in the comparison, each variant's
// metric that did, then each verdict at a knob point, as
// compare.FailOn takes them.
func Regressions(r *abtest.Result) []string {
	var out []string
	if r.Compare != nil {
		out = r.Compare.Regressed(true)
	}
	for _, v := range r.Verdicts {
		if v.Comparison.Verdict == stats.Regressed {
			out = append(out, VerdictLine(v))
		}
	}
	return out
}
