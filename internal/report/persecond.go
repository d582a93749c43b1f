package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/kdelta/kdelta/internal/result"
)

// perSecondRuns is the most runs side by side in one per-second table,
// which keeps it within 100 columns.
const perSecondRuns = 8

// showPerSecond prints the per-second counts of the runs that kept them
// (result.InfoPerSecond), the shape of a reference that prints one number
// a second (the powerpc context_switch selftest): a line per second and a
// column per run, the numbers as the reference prints them, whole. It
// prints nothing when no run has them.
func showPerSecond(w io.Writer, rs []*result.Run) {
	type column struct {
		run    int
		counts []float64
	}
	var cols []column
	what, most := "", 0
	for _, r := range rs {
		counts, of, ok, err := r.PerSecond()
		if err != nil {
			fmt.Fprintf(w, "  per-second counts: %v\n", err)
			continue
		}
		if !ok {
			continue
		}
		if what == "" {
			what = of
		}
		cols = append(cols, column{r.Index + 1, counts})
		most = max(most, len(counts))
	}
	if len(cols) == 0 {
		return
	}
	if what == "" {
		what = "counts"
	}
	if most == 0 {
		fmt.Fprintf(w, "  %s per second: none, the runs were shorter than a second\n", what)
		return
	}
	fmt.Fprintf(w, "  %s per second, a line a second as the reference prints them:\n", what)
	for lo := 0; lo < len(cols); lo += perSecondRuns {
		part := cols[lo:min(lo+perSecondRuns, len(cols))]
		rows := [][]string{{"s"}}
		for _, c := range part {
			rows[0] = append(rows[0], fmt.Sprintf("run %d", c.run))
		}
		for s := 0; s < most; s++ {
			row := []string{strconv.Itoa(s + 1)}
			for _, c := range part {
				cell := ""
				if s < len(c.counts) {
					cell = strconv.FormatFloat(c.counts[s], 'f', -1, 64)
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
		writeMarkdown(w, "  ", rows)
	}
}
