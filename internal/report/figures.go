package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// figureUnits are the units of time whose decrease is "faster".
var figureUnits = map[string]bool{"s": true, "ms": true, "us": true, "µs": true, "ns": true}

// FigureWords says the change of a single figure from another as a mail
// does, from the values: "31.6% faster; one value each, no spread to test"
// for a time, else the signed change and whether it is for the better.
func FigureWords(change float64, m result.Metric) string {
	const tail = "; one value each, no spread to test"
	switch {
	case math.IsNaN(change) || math.IsInf(change, 0):
		return "no relative change (a value is 0)" + tail
	case math.Abs(change) < 0.0005:
		return "no change" + tail
	case figureUnits[m.Unit] && m.Better != result.Higher:
		if change < 0 {
			return fmt.Sprintf("%.1f%% faster", -100*change) + tail
		}
		return fmt.Sprintf("%.1f%% slower", 100*change) + tail
	case m.Worse(change):
		return Pct(change) + " (worse)" + tail
	default:
		return Pct(change) + " (better)" + tail
	}
}

// figureRowText prints a row whose every comparison is of single figures
// (compare.Row.Figures): each set's value and each change in words, with
// no spread, interval or test, since there is none, and what the source
// of a side claimed, beside it. It tells whether it printed the row.
func figureRowText(w io.Writer, r *compare.Result, row compare.Row) bool {
	for i := range row.Vs {
		if !row.Figures(i) {
			return false
		}
	}
	fmt.Fprintf(w, "  %s (%s, %s; single figures)\n", row.Metric.Name, unitOr(row.Metric.Unit), BetterText(row.Metric.Better))
	for i, s := range row.Sides {
		fmt.Fprintf(w, "    %s %s\n", letter(i), WithUnit(s.Values[0], row.Metric.Unit))
		if i > 0 {
			fmt.Fprintf(w, "      %s vs A: %s\n", letter(i), FigureWords(row.Vs[i-1].Change, row.Metric))
		}
		if claim, vs := r.Claim(row, i); claim != "" {
			if vs != "" {
				claim += " vs " + vs
			}
			fmt.Fprintf(w, "      %s's source says: %s\n", letter(i), claim)
		}
	}
	return true
}

// figureCells are the change, interval, p and verdict cells of a Markdown
// comparison of single figures: the change in words, and no interval,
// test or verdict.
func figureCells(c stats.Comparison, m result.Metric) []string {
	words := strings.TrimSuffix(FigureWords(c.Change, m), "; one value each, no spread to test")
	return []string{words, "-", "-", "single figures, no test"}
}

// showClaims prints what the source of imported runs said of their change
// (a table's "Improvement" column), which the import kept beside the
// values and did not measure.
func showClaims(w io.Writer, rs []*result.Run) {
	for _, r := range rs {
		if c := r.Info["claim"]; c != "" {
			if vs := r.Info["claim-vs"]; vs != "" {
				c += " vs " + vs
			}
			fmt.Fprintf(w, "  %s: the source says %s\n", runLabel(r), c)
		}
	}
}
