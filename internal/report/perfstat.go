package report

import (
	"fmt"
	"io"
	"math"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// PerfStat prints the first benchmark of s the way perf stat --repeat
// does: per event the mean value, its unit and name, and "( +- x% )", the
// standard error of the mean relative to the mean; then the elapsed line.
// Beside perf's spread it prints the standard deviation ("sd x%"), which
// is the spread of one run. The monitors follow, schedstat's as
// WriteSchedstat lays it out.
func PerfStat(w io.Writer, s *result.Set) {
	if len(s.Benchmarks) == 0 {
		return
	}
	b := s.Benchmarks[0]
	rs := b.Measured()
	n := len(rs)
	runs := ""
	if n > 1 {
		runs = fmt.Sprintf(" (%d runs)", n)
	}
	fmt.Fprintf(w, "\n Performance counter stats for '%s'%s:\n\n", b.Params["command"], runs)
	if n == 0 {
		fmt.Fprintln(w, "   no run finished")
		return
	}
	var order []string
	vals := map[string][]float64{}
	units := map[string]string{}
	reasons := map[string]string{}
	for _, r := range rs {
		for _, c := range r.Counters {
			if _, ok := units[c.Name]; !ok {
				order = append(order, c.Name)
				units[c.Name] = c.Unit
			}
			if c.Unsupported != "" {
				reasons[c.Name] = c.Unsupported
				continue
			}
			vals[c.Name] = append(vals[c.Name], c.Value)
		}
	}
	for _, name := range order {
		xs := vals[name]
		if len(xs) == 0 {
			fmt.Fprintf(w, "   %15s      %-30s %s\n", "<not supported>", name, reasons[name])
			continue
		}
		sm := stats.Summarize(xs)
		val, unit := stats.WholeNum(sm.Mean), "    "
		if units[name] == "ns" {
			val, unit = fmt.Sprintf("%.2f", sm.Mean/1e6), "msec"
		}
		fmt.Fprintf(w, "   %15s %-4s %-30s%s\n", val, unit, name, spread(sm))
	}
	el := stats.Summarize(b.Values("elapsed"))
	fmt.Fprintln(w)
	if n > 1 {
		fmt.Fprintf(w, "   %12.5f +- %.5f seconds time elapsed  ( +- %5.2f%% )  sd %.2f%%\n",
			el.Mean, el.StdErr, pct(el.StdErr, el.Mean), pct(el.Stddev, el.Mean))
	} else {
		fmt.Fprintf(w, "   %15.9f seconds time elapsed\n", el.Mean)
	}
	// Then user and sys (the elapsed time is above), as perf prints them
	// when it has them: a run that lacks one (an import) adds nothing to
	// its mean, and none having it leaves the line out.
	fmt.Fprintln(w)
	for _, t := range runTimes[1:] {
		if v, ok := meanFigure(rs, t.fig, t.get); ok {
			fmt.Fprintf(w, "   %15.9f seconds %s\n", v, t.name)
		}
	}
	fmt.Fprintln(w)
	// The monitors of --monitor (none by default): each one asked for
	// schedstat, window or not, is laid out in full.
	showMonitors(w, rs)
	showSchedstat(w, rs, false)
	for _, r := range b.Runs {
		if r.Status != result.StatusOK {
			fmt.Fprintf(w, "   run %d %s: %s\n", r.Index+1, r.Status, r.Reason)
		}
	}
}

func spread(sm stats.Summary) string {
	if sm.N < 2 {
		return ""
	}
	return fmt.Sprintf("  ( +- %5.2f%% )  sd %.2f%%", pct(sm.StdErr, sm.Mean), pct(sm.Stddev, sm.Mean))
}

func pct(x, m float64) float64 {
	if m == 0 {
		return 0
	}
	return 100 * x / math.Abs(m)
}
