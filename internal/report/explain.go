package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/explain"
	"github.com/kdelta/kdelta/internal/stats"
)

// ExplainFormats are the formats WriteExplain knows.
var ExplainFormats = []string{"text", "markdown", "html"}

// ExplainWidth is the text report's width: a mail's.
const ExplainWidth = 72

// A block is one part of a section: a sentence (wrapped to the width) or
// a table.
type block struct {
	line  string
	table [][]string // header first
	right []bool     // right-aligned columns of table
}

type section struct {
	title  string
	blocks []block
}

// WriteExplain renders an explanation in format.
func WriteExplain(w io.Writer, r *explain.Report, format string) error {
	secs := explainSections(r)
	switch format {
	case "", "text":
		writeWrapped(w, "", fmt.Sprintf("kdelta explain: B (%s) against A (%s)", r.Names[1], r.Names[0]), ExplainWidth)
		for _, s := range secs {
			fmt.Fprintf(w, "\n%s\n", s.title)
			for _, b := range s.blocks {
				if b.table != nil {
					writeAligned(w, "  ", fitTable(b.table, ExplainWidth-2), b.right)
					continue
				}
				writeWrapped(w, "  ", b.line, ExplainWidth)
			}
		}
	case "markdown":
		fmt.Fprintf(w, "**kdelta explain: B (%s) against A (%s)**\n", r.Names[1], r.Names[0])
		for _, s := range secs {
			fmt.Fprintf(w, "\n### %s\n\n", s.title)
			for _, b := range s.blocks {
				if b.table != nil {
					fmt.Fprintln(w)
					writeMarkdownLeft(w, b.table)
					fmt.Fprintln(w)
					continue
				}
				if t := strings.TrimLeft(b.line, " "); t != b.line {
					fmt.Fprintf(w, "  - %s\n", t) // the line under the one before
					continue
				}
				fmt.Fprintf(w, "- %s\n", b.line)
			}
		}
	case "html":
		explainHTML(w, r, secs)
	default:
		return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(ExplainFormats, ", "))
	}
	return nil
}

// explainHTML writes one self-contained page; every text is escaped.
func explainHTML(w io.Writer, r *explain.Report, secs []section) {
	e := html.EscapeString
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kdelta explain</title>\n"+
		"<style>body{font:14px sans-serif;max-width:60em;margin:1em auto}table{border-collapse:collapse}"+
		"td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}td.r{text-align:right}</style></head><body>\n")
	fmt.Fprintf(w, "<h1>B (%s) against A (%s)</h1>\n", e(r.Names[1]), e(r.Names[0]))
	for _, s := range secs {
		fmt.Fprintf(w, "<h2>%s</h2>\n", e(s.title))
		for _, b := range s.blocks {
			if b.table == nil {
				fmt.Fprintf(w, "<p>%s</p>\n", e(b.line))
				continue
			}
			fmt.Fprintln(w, "<table>")
			for i, row := range b.table {
				fmt.Fprint(w, "<tr>")
				for j, c := range row {
					tag, class := "td", ""
					if i == 0 {
						tag = "th"
					} else if j < len(b.right) && b.right[j] {
						class = ` class="r"`
					}
					fmt.Fprintf(w, "<%s%s>%s</%s>", tag, class, e(c), tag)
				}
				fmt.Fprintln(w, "</tr>")
			}
			fmt.Fprintln(w, "</table>")
		}
	}
	fmt.Fprintln(w, "</body></html>")
}

func explainSections(r *explain.Report) []section {
	return []section{
		{"The verdict", verdictBlocks(r)},
		{"Were the setups the same?", setupBlocks(r)},
		{"More work, or the same work more slowly?", workBlocks(r)},
		{"Where the time went", profileBlocks(r)},
		{"What the verdict rests on", designBlocks(r)},
	}
}

// centre is a side's value as the verdict sentence gives it: the single
// figure, the summary's mean, or the median of the runs.
func centre(s compare.Side) float64 {
	switch {
	case s.FromSummary:
		return s.Summary.Mean
	case len(s.Values) == 1:
		return s.Values[0]
	}
	return s.Summary.Median
}

// VerdictSentence says a comparison in seed mail 002's shape, "A -> B
// (38% improvement)", the words never stronger than the verdict:
// improvement or regression only when it is one, "changed" for a count
// with no better side, else the size and what the verdict is.
func VerdictSentence(row compare.Row) string {
	c := row.Vs[0]
	a, b, name := Centres(c, row.Sides[0], row.Sides[1])
	head := fmt.Sprintf("%s %s -> %s", row.Metric.Name, WithUnit(a, row.Metric.Unit), WithUnit(b, row.Metric.Unit))
	if row.Figures(0) {
		return head + " (" + FigureWords(c.Change, row.Metric) + ")"
	}
	if name != "" {
		return head + " (" + verdictWords(c) + "; " + name + ")"
	}
	return head + " (" + verdictWords(c) + ")"
}

func verdictWords(c stats.Comparison) string {
	size := "no change"
	if ch := c.Change; !math.IsNaN(ch) && math.Abs(ch) >= 0.0005 {
		size = fmt.Sprintf("%.1f%% lower", -100*ch)
		if ch > 0 {
			size = fmt.Sprintf("%.1f%% higher", 100*ch)
		}
	}
	mag := strings.Fields(size)[0]
	switch c.Verdict {
	case stats.Improved:
		return mag + " improvement"
	case stats.Regressed:
		return mag + " regression"
	case stats.Changed:
		return size + ", changed"
	case stats.NoChange:
		return fmt.Sprintf("no change beyond ±%.0f%%", 100*c.Options.Threshold)
	}
	return size + ", " + VerdictText(c)
}

func verdictBlocks(r *explain.Report) []block {
	if len(r.Verdicts) == 0 {
		return []block{{line: "No workload of A has a primary time or rate measured in B too."}}
	}
	var bs []block
	for _, row := range r.Verdicts {
		bench := strings.TrimSpace(row.Workload + "  " + row.Params)
		bs = append(bs, block{line: bench + ": " + VerdictSentence(row)})
		c := row.Vs[0]
		if !row.Figures(0) && !c.Design.NoiseUnknown {
			bs = append(bs, block{line: fmt.Sprintf("  %s %s %s", Pct(c.Change), Interval(c.CI), PValue(c.P))})
		}
	}
	return bs
}

func setupBlocks(r *explain.Report) []block {
	var bs []block
	if len(r.Conditions) == 0 {
		bs = append(bs, block{line: "Run conditions: the same, as far as both sets record them."})
	}
	for _, d := range r.Conditions {
		bs = append(bs, block{line: "! run condition " + d.String()})
	}
	if r.Hosts != [2]string{} {
		bs = append(bs, block{line: fmt.Sprintf("! different hosts: %s -> %s", orNone(r.Hosts[0]), orNone(r.Hosts[1]))})
	}
	if len(r.Setup) == 0 {
		return append(bs, block{line: "No fingerprint to compare (an import records none)."})
	}
	for _, d := range r.Setup {
		switch {
		case d.Same && strings.HasPrefix(d.Note, "both "):
			bs = append(bs, block{line: "= " + d.Field + ": " + d.Note})
		case d.Same:
			bs = append(bs, block{line: "= " + d.Field + ": same (" + d.A + ")"})
		default:
			line := "! " + d.Field + ": " + d.A + " -> " + d.B
			if d.Note != "" {
				line += " (" + d.Note + ")"
			}
			bs = append(bs, block{line: line})
		}
	}
	if r.Other > 0 {
		bs = append(bs, block{line: fmt.Sprintf("and %d other differences that are not known to move a figure (kdelta env diff A B lists them)", r.Other)})
	}
	return bs
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func workBlocks(r *explain.Report) []block {
	if len(r.Work) == 0 {
		return []block{{line: "No counters or rusage in both sets: record them with kdelta run -e EVENTS (the default counts context switches, migrations, page faults and the task clock)."}}
	}
	var bs []block
	for _, w := range r.Work {
		bs = append(bs, block{line: w.Bench + ":"})
		t := [][]string{{"figure", "A", "B", "change", "verdict"}}
		var names []string
		for _, row := range w.Rows {
			c := row.Vs[0]
			a, b, name := Centres(c, row.Sides[0], row.Sides[1])
			t = append(t, []string{row.Metric.Name, Num(a), Num(b), Pct(c.Change), shortVerdict(c)})
			if name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		bs = append(bs, block{table: t, right: []bool{false, true, true, true, false}})
		if len(names) > 0 {
			bs = append(bs, block{line: "  A and B are the centres each change relates: " + strings.Join(names, ", ")})
		}
	}
	return bs
}

// shortVerdict is a verdict in a table cell; what would settle an
// inconclusive one is in the design section.
func shortVerdict(c stats.Comparison) string { return c.Verdict.Words() }

// fitTable shortens the first column of rows (symbols, figure names) with
// "…" so that the table, two spaces between columns, fits width.
func fitTable(rows [][]string, width int) [][]string {
	cols := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			cols[i] = max(cols[i], len([]rune(c)))
		}
	}
	total := 2 * (len(cols) - 1)
	for _, c := range cols {
		total += c
	}
	over := total - width
	if over <= 0 || cols[0]-over < 8 {
		return rows
	}
	limit := cols[0] - over
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append([]string(nil), r...)
		if rs := []rune(r[0]); len(rs) > limit {
			out[i][0] = string(rs[:limit-1]) + "…"
		}
	}
	return out
}

func profileBlocks(r *explain.Report) []block {
	if len(r.Profiles) == 0 {
		return []block{{line: "No workload is in both sets."}}
	}
	var bs []block
	for _, p := range r.Profiles {
		if p.Diff == nil {
			bs = append(bs, block{line: p.Bench + ": no profiles in both sets; record them with: " + strings.Join(p.Record, " ")})
			continue
		}
		d := p.Diff
		head := fmt.Sprintf("%s: the symbols whose share of the samples changed most (%s)", p.Bench, d.By)
		if pa, pb := d.A.PerOp(), d.B.PerOp(); !math.IsNaN(pa) && !math.IsNaN(pb) {
			head += fmt.Sprintf("; samples per operation %s -> %s", Num(pa), Num(pb))
		}
		bs = append(bs, block{line: head + ":"})
		// The change of the symbol's samples per operation when the
		// profiles know their operations, else of its samples.
		perOpKnown := !math.IsNaN(d.A.PerOp()) && !math.IsNaN(d.B.PerOp())
		last := "samples"
		if perOpKnown {
			last = "per op"
		}
		t := [][]string{{"symbol", "A", "B", "change", last}}
		for i, row := range d.Rows {
			if i == explain.TopSymbols {
				break
			}
			perOp := "-"
			if ch := row.SamplesChange; perOpKnown {
				perOp = Pct(row.PerOpChange)
			} else if !math.IsNaN(ch) {
				perOp = Pct(ch)
			}
			t = append(t, []string{row.Symbol, shareCell(row.A), shareCell(row.B), fmt.Sprintf("%+.2f pp", row.Delta), perOp})
		}
		bs = append(bs, block{table: t, right: []bool{false, true, true, true, true}})
		bs = append(bs, annotatedBlocks(p)...)
		for _, wn := range d.Warnings {
			bs = append(bs, block{line: "warning: " + wn})
		}
	}
	return bs
}

func designBlocks(r *explain.Report) []block {
	var bs []block
	for _, row := range r.Verdicts {
		bench := strings.TrimSpace(row.Workload + "  " + row.Params)
		c := row.Vs[0]
		switch {
		case row.Figures(0):
			bs = append(bs, block{line: bench + ": one value a side, no spread to test: a figure, not a verdict."})
		case DesignText(c) != "":
			bs = append(bs, block{line: bench + " " + row.Metric.Name + ": " + VerdictText(c) + " " + DesignText(c)})
		default:
			bs = append(bs, block{line: bench + " " + row.Metric.Name + ": " + VerdictText(c)})
		}
	}
	for _, w := range r.Warnings {
		bs = append(bs, block{line: "warning: " + w})
	}
	if len(bs) == 0 {
		bs = append(bs, block{line: "Nothing was compared."})
	}
	return bs
}

// annotatedBlocks are the top symbol's lines whose share of its samples
// changed most, as profile annotate --diff ranks them.
func annotatedBlocks(p explain.Profile) []block {
	switch {
	case p.Symbol == "":
		return nil
	case len(p.Lines) == 0 && p.NoLines != "":
		return []block{{line: p.Symbol + ": no annotated instructions: " + p.NoLines}}
	case len(p.Lines) == 0:
		return []block{{line: p.Symbol + ": no line has samples on either side"}}
	}
	bs := []block{{line: p.Symbol + ": the lines whose share of its samples changed most (kdelta profile annotate --diff shows them all):"}}
	t := [][]string{{"line", "A", "B", "change"}}
	for _, c := range p.Lines {
		text := insnText(c.Jump, c.Text)
		switch {
		case c.Total:
			text = "Σ " + c.Source
		case c.Text == "":
			text = "offset " + offset(max(c.OffsetA, c.OffsetB))
		}
		t = append(t, []string{text, side(c.InA, c.PercentA), side(c.InB, c.PercentB), fmt.Sprintf("%+.2f pp", c.Delta())})
	}
	return append(bs, block{table: t, right: []bool{false, true, true, true}})
}
