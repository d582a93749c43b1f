package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// WriteSweep writes each sweep as a table: the swept values, the median
// and the coefficient of variation of each variant's measured runs, and,
// for each variant after the first, the change from the first and the
// verdict.
func WriteSweep(w io.Writer, sweeps []job.Sweep) {
	for i, sw := range sweeps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeSweep(w, sw)
	}
}

func writeSweep(w io.Writer, sw job.Sweep) {
	m := sw.Metric
	better := string(m.Better)
	if better == "" {
		better = string(result.Lower) // as Metric.Worse reads it
	}
	fmt.Fprintf(w, "sweep: %s %s (%s, %s is better): median of the measured runs, CV in brackets\n", sw.Workload, m.Name, unitOr(m.Unit), better)
	variants := make([]string, len(sw.Variants))
	for i, v := range sw.Variants {
		variants[i] = v
		if v == "" {
			variants[i] = "median"
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := append([]string(nil), sw.Axes...)
	head = append(head, variants...)
	for _, v := range variants[1:] {
		head = append(head, v+" vs "+variants[0], "verdict")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range sw.Rows {
		var row []string
		for _, v := range r.Values {
			row = append(row, OrDash(v))
		}
		for _, b := range r.Benchmarks {
			row = append(row, medianCell(b, m.Name))
		}
		for _, c := range r.Vs {
			if c == nil {
				row = append(row, "-", "-")
				continue
			}
			row = append(row, Pct(c.Change), VerdictText(*c))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// medianCell is "median [cv%] n=N", or why there is none.
func medianCell(b *result.Benchmark, metric string) string {
	if b.Skipped != "" {
		return "skipped"
	}
	v := b.Values(metric)
	if len(v) == 0 {
		return "no runs"
	}
	s := stats.Summarize(v)
	return fmt.Sprintf("%s [%.1f%%] n=%d", Num(s.Median), s.CV, s.N)
}

// VerdictLine is one variant against the first at its knob point, on one
// benchmark's first metric, on one line: "b vs a: syscall ns/call: +3.1%
// regressed".
func VerdictLine(v job.Verdict) string {
	return fmt.Sprintf("%s vs %s: %s %s: %s %s", v.Cell, v.Baseline, v.Benchmark, v.Metric, Pct(v.Comparison.Change), VerdictText(v.Comparison))
}
