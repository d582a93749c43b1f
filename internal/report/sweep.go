package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// A Sweep is the table of one workload's first metric against the values
// a job sweeps (kdelta ab --matrix): a row per benchmark (parameter point)
// and knob point, a column per variant.
type Sweep struct {
	Workload string
	Metric   result.Metric
	// Axes head the columns of the swept values: knob keys and parameter
	// names.
	Axes []string
	// Variants name the variant columns, the baseline first; an empty
	// name (a job without variants) is shown as "median".
	Variants []string
	Rows     []SweepRow
}

// A SweepRow is one benchmark at one knob point.
type SweepRow struct {
	// Values are the row's values of the Axes; "" for a benchmark that
	// lacks the parameter.
	Values []string
	// Benchmarks are each variant's benchmark, in Variants order.
	Benchmarks []*result.Benchmark
	// Vs compare each variant after the first with the first; nil where
	// the two could not be compared.
	Vs []*stats.Comparison
}

// WriteSweep writes each sweep as a table: the swept values, the median
// and the coefficient of variation of each variant's measured runs, and,
// for each variant after the first, the change from the first and the
// verdict.
func WriteSweep(w io.Writer, sweeps []Sweep) {
	for i, sw := range sweeps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeSweep(w, sw)
	}
}

func writeSweep(w io.Writer, sw Sweep) {
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
