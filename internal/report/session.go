package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
)

// A Session is what kdelta ab, and kdelta run with a job of several
// cells, show of the cells' result sets.
type Session struct {
	// Names, Sets and Paths are each cell's name, result set and the
	// file it was saved in ("" for none).
	Names []string
	Sets  []*result.Set
	Paths []string
	// Compare is the comparison of the variants; nil for none.
	Compare *compare.Result
	// Sweeps are the tables of a matrix; nil without one.
	Sweeps []job.Sweep
	// Until, when set, is how a session run until conclusive ended.
	Until *Until
}

// Until is how a session run until conclusive ended: every verdict
// conclusive after Runs runs per variant, or MaxRuns reached with the
// Pending verdicts still inconclusive.
type Until struct {
	Runs, MaxRuns int
	Pending       []job.Verdict
}

// WriteSaved says on w where each cell's set went: recorded under its id
// in the store at loc (nothing when loc is ""), then saved in its file.
// It returns the files.
func (s Session) WriteSaved(w io.Writer, loc string) []string {
	if loc != "" {
		for i, set := range s.Sets {
			fmt.Fprintf(w, "kdelta: %s recorded as %s in %s\n", OrDash(s.Names[i]), set.ID, loc)
		}
	}
	var saved []string
	for i, p := range s.Paths {
		if p != "" {
			fmt.Fprintf(w, "kdelta: %s saved in %s\n", OrDash(s.Names[i]), p)
			saved = append(saved, p)
		}
	}
	return saved
}

// WriteSession prints the comparison of the variants in format, the
// sweep tables (in text and Markdown only: they have no CSV or JSON
// form), and why until-conclusive stopped.
func WriteSession(w io.Writer, s Session, format string) error {
	if s.Compare != nil {
		if err := WriteCompare(w, s.Compare, format); err != nil {
			return err
		}
	}
	if s.Sweeps != nil && (format == "text" || format == "markdown") {
		if s.Compare != nil {
			fmt.Fprintln(w)
		}
		WriteSweep(w, s.Sweeps)
	}
	if u := s.Until; u != nil {
		if len(u.Pending) == 0 {
			fmt.Fprintf(w, "until-conclusive: every verdict conclusive after %d runs per variant\n", u.Runs)
		}
		for _, p := range u.Pending {
			fmt.Fprintf(w, "until-conclusive: reached --max-runs %d: %s\n", u.MaxRuns, VerdictLine(p))
		}
	}
	return nil
}

// WriteRunProfiles prints the top symbols of each benchmark's profiles
// after a run's summary (kdelta run --profile); nothing when set has
// none.
func WriteRunProfiles(w io.Writer, set *result.Set) {
	if set == nil {
		return
	}
	gs, err := profile.FromSet("", set)
	if err != nil {
		return
	}
	fmt.Fprintln(w, "\nprofiles (extra runs, not in the statistics above):")
	WriteProfiles(w, gs, "text", 10)
}

// KeptRuns says what the sets keep of an interrupted session: measured
// runs and warm-ups apart, since a warm-up counts in no statistic and "1
// run kept" after one would promise a measurement that is not there.
func KeptRuns(sets ...*result.Set) string {
	measured, warm := 0, 0
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				switch {
				case r.Measured():
					measured++
				case r.Warmup && r.Status == result.StatusOK:
					warm++
				}
			}
		}
	}
	return fmt.Sprintf("kept %s and %s", runsText(measured, "measured"), runsText(warm, "warm-up"))
}

// runsText is "1 KIND run" or "N KIND runs".
func runsText(n int, kind string) string {
	if n == 1 {
		return "1 " + kind + " run"
	}
	return fmt.Sprintf("%d %s runs", n, kind)
}

// SavedIn ends a line with where a command's sets are saved: " in
// FILES", or nothing when saved is "".
func SavedIn(saved string) string {
	if saved == "" {
		return ""
	}
	return " in " + saved
}

// Interrupted is the message of a session cut short: the runs its sets
// keep, the files they are saved in (saved, "" for none), and, after a
// session that set knobs, whether they are back.
func Interrupted(sets []*result.Set, saved string, knobs, restored bool) string {
	s := "interrupted: " + KeptRuns(sets...) + SavedIn(saved)
	switch {
	case !knobs:
	case restored:
		s += "; knobs restored"
	default:
		s += "; some knobs are not restored (kdelta restore tries again)"
	}
	return s
}
