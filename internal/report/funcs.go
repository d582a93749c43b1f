package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// funcTable prints seed mail 002's table of a kernel function's calls, a
// column per set:
//
//	Per-synchronize_rcu() latency (in usec):
//	             A        B
//	median:  37249.5    15765
//	min:        7881     9803
//	max:       63651    31861
//
// with the calls counted under it, and what a figure does not cover
// (a median of run medians, events the trace buffer lost) said after.
func funcTable(w io.Writer, indent string, ft compare.FuncTable) {
	fmt.Fprintf(w, "%sPer-%s() latency (in usec):\n", indent, ft.Function)
	rows := [][]string{{""}}
	for i := range ft.Sets {
		rows[0] = append(rows[0], letter(i))
	}
	for _, r := range []struct {
		name string
		get  func(compare.FuncPool) string
	}{
		{"median:", func(p compare.FuncPool) string { return usNum(p.Median) }},
		{"min:", func(p compare.FuncPool) string { return usNum(p.Min) }},
		{"max:", func(p compare.FuncPool) string { return usNum(p.Max) }},
		{"calls:", func(p compare.FuncPool) string { return strconv.Itoa(p.Calls) }},
	} {
		row := []string{r.name}
		for _, p := range ft.Sets {
			if p.Calls == 0 && r.name != "calls:" {
				row = append(row, "-")
				continue
			}
			row = append(row, r.get(p))
		}
		rows = append(rows, row)
	}
	writeColumns(w, indent, rows)
	for i, p := range ft.Sets {
		for _, n := range funcNotes(p) {
			fmt.Fprintf(w, "%s(%s: %s)\n", indent, letter(i), n)
		}
	}
}

// funcNotes says what a pool's figures do not cover.
func funcNotes(p compare.FuncPool) []string {
	var out []string
	if p.Runs == 0 {
		out = append(out, "not timed in any measured run")
	}
	if !p.Pooled {
		out = append(out, "median of the runs' medians: a run kept only its summary")
	}
	if p.Lost > 0 {
		out = append(out, fmt.Sprintf("the trace buffer lost %d events: the figures cover only the calls it kept", p.Lost))
	}
	return out
}

// usNum formats microseconds as the mail's table does: whole numbers, a
// half where a median falls between two calls (37249.5), and three
// decimals below 100 us, where a call takes microseconds.
func usNum(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
}

// showFuncs prints, for each kernel function timed during b's runs, its
// calls over the measured runs: how many (per operation too), the median,
// least and greatest latency, and the log2 histogram as bcc's funclatency
// prints it.
func showFuncs(w io.Writer, b *result.Benchmark, rs []*result.Run) {
	var ops float64
	for _, r := range rs {
		ops += r.Ops
	}
	for _, fn := range compare.Funcs(b) {
		p := compare.PoolFunc(b, fn)
		if p.Runs == 0 {
			continue
		}
		perOp := ""
		if ops > 0 && p.Runs == len(rs) {
			perOp = fmt.Sprintf(", %s per op", Num(float64(p.Calls)/ops))
		}
		fmt.Fprintf(w, "  %s() timed in the kernel (%s, %s scope), %d runs: %d calls%s\n", fn, p.Tracer, p.Scope, p.Runs, p.Calls, perOp)
		if p.Calls > 0 {
			fmt.Fprintf(w, "    median %s us, min %s us, max %s us\n", usNum(p.Median), usNum(p.Min), usNum(p.Max))
			writeHist(w, "    ", p.Hist)
		}
		for _, n := range funcNotes(p) {
			fmt.Fprintf(w, "    (%s)\n", n)
		}
	}
}

// bound formats a histogram bucket's bound: a power of two, or 0.
func bound(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// writeHist draws a log2 histogram of microseconds, each bucket from its
// lower bound up to, not including, its upper.
func writeHist(w io.Writer, indent string, hist []result.Bucket) {
	var top int64
	for _, h := range hist {
		top = max(top, h.Count)
	}
	rows := [][]string{{"usecs", "count", "distribution"}}
	for _, h := range hist {
		bar := int(40 * h.Count / top)
		rows = append(rows, []string{bound(h.Lo) + " -> " + bound(h.Hi), strconv.FormatInt(h.Count, 10),
			"|" + strings.Repeat("*", bar) + strings.Repeat(" ", 40-bar) + "|"})
	}
	writeColumns(w, indent, rows)
}
