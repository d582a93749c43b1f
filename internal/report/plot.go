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

// PlotWidth is the width in columns of a text strip plot's scale.
const PlotWidth = 60

// plotLegend heads the plots.
const plotLegend = "\nruns per column: . one, : two, # more; | the median, o an outlier"

// A strip is one set's line of a text strip plot.
type strip struct {
	Name   string
	Values []float64
}

// WriteComparePlots writes, per workload × metric of r, a text strip plot
// of every set's runs on one scale, a line per set (kdelta compare
// --plot), for a terminal over ssh.
func WriteComparePlots(w io.Writer, r *compare.Result) {
	fmt.Fprintln(w, plotLegend)
	for _, row := range r.Rows {
		var ss []strip
		for i, s := range row.Sides {
			ss = append(ss, strip{Name: letter(i), Values: s.Values})
		}
		writeStrips(w, strings.TrimSpace(row.Workload+"  "+row.Params)+"  "+metricLabel(row.Metric), ss)
	}
}

// WriteShowPlots writes a text strip plot of each metric of each of s's
// benchmarks (kdelta show --plot).
func WriteShowPlots(w io.Writer, s *result.Set) {
	fmt.Fprintln(w, plotLegend)
	for _, b := range s.Benchmarks {
		for _, m := range b.Metrics {
			writeStrips(w, strings.TrimSpace(b.Workload+"  "+result.FormatParams(b.Params))+"  "+metricLabel(m),
				[]strip{{Name: "runs", Values: b.Values(m.Name)}})
		}
	}
}

// writeStrips draws each strip's runs on one linear scale from the lowest
// run to the highest: a column with one run is '.', two ':', more '#';
// the median is '|' and an outlier (as the sample warnings call one) 'o',
// over the runs.
func writeStrips(w io.Writer, title string, ss []strip) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return // no runs to plot (summaries)
	}
	col := func(v float64) int {
		if hi == lo {
			return PlotWidth / 2
		}
		return min(int((v-lo)/(hi-lo)*float64(PlotWidth-1)+0.5), PlotWidth-1)
	}
	name := 0
	for _, s := range ss {
		name = max(name, len(s.Name))
	}
	fmt.Fprintf(w, "\n%s\n", title)
	pad := strings.Repeat(" ", name+4)
	left, right := Num(lo), Num(hi)
	fmt.Fprintf(w, "%s%s%s%s\n", pad, left, strings.Repeat(" ", max(PlotWidth+2-len(left)-len(right), 1)), right)
	for _, s := range ss {
		cells := make([]int, PlotWidth)
		for _, v := range s.Values {
			cells[col(v)]++
		}
		line := make([]byte, PlotWidth)
		for i, n := range cells {
			line[i] = " .:#"[min(n, 3)]
		}
		if len(s.Values) > 0 {
			line[col(stats.Summarize(s.Values).Median)] = '|'
		}
		for _, k := range stats.Outliers(s.Values) {
			line[col(s.Values[k])] = 'o'
		}
		fmt.Fprintf(w, "  %-*s  [%s]  n=%d\n", name, s.Name, line, len(s.Values))
	}
}
