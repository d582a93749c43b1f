package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/stats"
)

// ProfileFormats are the formats WriteProfiles and WriteProfileDiffs know.
var ProfileFormats = []string{"text", "markdown", "csv", "json"}

// maxSymbolWidth bounds the symbol column of text output, so a table stays
// within 100 columns; longer names lose their start to "~".
const maxSymbolWidth = 34

// WriteProfiles renders the top symbols of each group (profile show): the
// mean share over the group's profiles, their range when there are
// several, samples and samples per operation when known. top <= 0 shows
// every symbol.
func WriteProfiles(w io.Writer, groups []profile.Group, format string, top int) error {
	type shown struct {
		g       profile.Group
		sum     profile.Summary
		entries []profile.Entry
	}
	var all []shown
	for _, g := range groups {
		sum, es := profile.Aggregate(profile.Side(g))
		if top > 0 && len(es) > top {
			es = es[:top]
		}
		all = append(all, shown{g, sum, es})
	}
	switch format {
	case "", "text", "markdown":
		md := format == "markdown"
		for i, s := range all {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if md {
				fmt.Fprintf(w, "### %s\n\n%s\n\n", s.g.Name, sideLine(s.sum))
			} else {
				fmt.Fprintf(w, "%s\n  %s\n", s.g.Name, sideLine(s.sum))
			}
			for _, u := range s.sum.Unavailable {
				fmt.Fprintf(w, "%sunavailable: %s\n", indentFor(md), u)
			}
			for _, warn := range s.sum.Warnings {
				fmt.Fprintf(w, "%swarning: %s\n", indentFor(md), warn)
			}
			if len(s.entries) == 0 {
				continue
			}
			if md {
				fmt.Fprintln(w)
			}
			rows := [][]string{showHeader(s.sum)}
			for _, e := range s.entries {
				rows = append(rows, showRow(s.sum, e, md))
			}
			if md {
				writeMarkdownLeft(w, rows)
			} else {
				writeColumns(w, "  ", rows)
			}
		}
		return nil
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"name", "symbol", "kernel", "dso", "commands", "profiles", "listed", "share_pct", "min_pct", "max_pct", "samples", "samples_per_op"})
		for _, s := range all {
			for _, e := range s.entries {
				cw.Write([]string{s.g.Name, e.Symbol, strconv.FormatBool(e.Kernel), e.DSO, e.Commands,
					strconv.Itoa(e.N), strconv.Itoa(e.Listed), csvNum(e.Share), csvNum(e.Min), csvNum(e.Max), csvNum(e.Samples), csvNum(e.PerOp)})
			}
		}
		cw.Flush()
		return cw.Error()
	case "json":
		type jsonGroup struct {
			Name    string           `json:"name"`
			Summary profile.Summary  `json:"summary"`
			Symbols []map[string]any `json:"symbols"`
		}
		out := []jsonGroup{}
		for _, s := range all {
			jg := jsonGroup{Name: s.g.Name, Summary: s.sum, Symbols: []map[string]any{}}
			for _, e := range s.entries {
				jg.Symbols = append(jg.Symbols, map[string]any{
					"symbol": e.Symbol, "kernel": e.Kernel, "dso": e.DSO, "commands": e.Commands,
					"stat": statJSON(e.Stat),
				})
			}
			out = append(out, jg)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(ProfileFormats, ", "))
}

func indentFor(md bool) string {
	if md {
		return "- "
	}
	return "  "
}

// sideLine describes a side: its profiles, event, samples, operations
// and cut-off.
func sideLine(s profile.Summary) string {
	if s.N == 0 {
		return fmt.Sprintf("no profile (%d unavailable)", len(s.Unavailable))
	}
	parts := []string{plural(s.N, "profile")}
	if len(s.Events) > 0 {
		parts = append(parts, strings.Join(s.Events, "+"))
	}
	if s.Samples > 0 {
		smp := samplesCell(math.Round(s.Samples)) + " samples"
		if s.N > 1 {
			smp += " each (mean)"
		}
		if s.SamplesEstimated {
			smp += " (estimated from the table)"
		}
		parts = append(parts, smp)
	}
	if s.Ops > 0 {
		parts = append(parts, Num(s.Ops)+" ops", Num(s.PerOp())+" samples/op")
	}
	if s.CutOff > 0 {
		parts = append(parts, fmt.Sprintf("table cut at %.2f%%", s.CutOff))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func showHeader(s profile.Summary) []string {
	h := []string{"Overhead"}
	if s.N > 1 {
		h = append(h, "range")
	}
	h = append(h, "Samples")
	if s.Ops > 0 {
		h = append(h, "Samples/op")
	}
	return append(h, "k/u", "Command", "Shared Object", "Symbol")
}

func showRow(s profile.Summary, e profile.Entry, md bool) []string {
	r := []string{fmt.Sprintf("%.2f%%", e.Share)}
	if s.N > 1 {
		r = append(r, fmt.Sprintf("%.2f-%.2f", e.Min, e.Max))
	}
	r = append(r, samplesCell(e.Samples))
	if s.Ops > 0 {
		r = append(r, Num(e.PerOp))
	}
	sym := e.Symbol
	if !md {
		sym = clipName(sym)
	}
	return append(r, ku(e.Kernel), e.Commands, e.DSO, sym)
}

func ku(kernel bool) string {
	if kernel {
		return "k"
	}
	return "u"
}

// samplesCell formats a sample count: whole counts as integers, means
// over several profiles with Num's precision.
func samplesCell(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == math.Trunc(v):
		return stats.WholeNum(v)
	}
	return Num(v)
}

// clipName shortens a long symbol from the left: the end of a name (the
// function after a Go package path or C++ namespaces) tells most.
func clipName(s string) string {
	r := []rune(s)
	if len(r) <= maxSymbolWidth {
		return s
	}
	return "~" + string(r[len(r)-maxSymbolWidth+1:])
}

// WriteProfileDiffs renders profile diffs (profile diff, compare
// --profile): per symbol A% | B% | Δ, ordered by the size of the change,
// with samples and samples per operation when known, marks for new
// symbols and symbols under a table's cut-off, and the spread when a side
// has several profiles. top <= 0 shows every symbol.
func WriteProfileDiffs(w io.Writer, diffs []*profile.Diff, format string, top int) error {
	cut := func(d *profile.Diff) []profile.Row {
		if top > 0 && len(d.Rows) > top {
			return d.Rows[:top]
		}
		return d.Rows
	}
	switch format {
	case "", "text", "markdown":
		md := format == "markdown"
		for i, d := range diffs {
			if i > 0 {
				fmt.Fprintln(w)
			}
			diffHead(w, d, md)
			rows := cut(d)
			if len(rows) == 0 {
				continue
			}
			if md {
				fmt.Fprintln(w)
			}
			table := [][]string{diffHeader(d)}
			for _, r := range rows {
				table = append(table, diffRow(d, r, md))
			}
			if md {
				writeMarkdownLeft(w, table)
			} else {
				writeColumns(w, "  ", table)
			}
			if len(d.Rows) > len(rows) {
				fmt.Fprintf(w, "%s%d smaller changes not shown (--top 0 shows all)\n", indentFor(md), len(d.Rows)-len(rows))
			}
		}
		return nil
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"name", "symbol", "kernel", "dso", "a_share_pct", "a_min_pct", "a_max_pct", "a_listed", "a_below_pct",
			"b_share_pct", "b_min_pct", "b_max_pct", "b_listed", "b_below_pct", "delta_pp", "delta_lo_pp", "delta_hi_pp",
			"a_samples", "b_samples", "samples_change", "a_per_op", "b_per_op", "per_op_change", "mark", "within_spread"})
		for _, d := range diffs {
			for _, r := range cut(d) {
				cw.Write([]string{d.Name, r.Symbol, strconv.FormatBool(r.Kernel), r.DSO,
					csvNum(r.A.Share), csvNum(r.A.Min), csvNum(r.A.Max), strconv.Itoa(r.A.Listed), csvNum(r.A.Below),
					csvNum(r.B.Share), csvNum(r.B.Min), csvNum(r.B.Max), strconv.Itoa(r.B.Listed), csvNum(r.B.Below),
					csvNum(r.Delta), csvNum(r.DeltaLo), csvNum(r.DeltaHi),
					csvNum(r.A.Samples), csvNum(r.B.Samples), csvNum(r.SamplesChange),
					csvNum(r.A.PerOp), csvNum(r.B.PerOp), csvNum(r.PerOpChange), r.Mark, strconv.FormatBool(r.WithinSpread)})
			}
		}
		cw.Flush()
		return cw.Error()
	case "json":
		out := []map[string]any{}
		for _, d := range diffs {
			rows := []map[string]any{}
			for _, r := range cut(d) {
				rows = append(rows, map[string]any{
					"symbol": r.Symbol, "kernel": r.Kernel, "dso": r.DSO, "commands": r.Commands,
					"a": statJSON(r.A), "b": statJSON(r.B),
					"delta_pp": jnum(r.Delta), "delta_lo_pp": jnum(r.DeltaLo), "delta_hi_pp": jnum(r.DeltaHi),
					"samples_change": jnum(r.SamplesChange), "per_op_change": jnum(r.PerOpChange),
					"mark": r.Mark, "within_spread": r.WithinSpread,
				})
			}
			out = append(out, map[string]any{"name": d.Name, "a": d.A, "b": d.B, "by": d.By, "rows": rows, "warnings": d.Warnings})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(ProfileFormats, ", "))
}

var orderWords = map[string]string{
	"share":   "ordered by the change of share (percentage points)",
	"samples": "ordered by the change of samples",
	"per-op":  "ordered by the change of samples per operation",
}

func diffHead(w io.Writer, d *profile.Diff, md bool) {
	name := d.Name
	if name == "" {
		name = "profile diff"
	}
	if md {
		fmt.Fprintf(w, "### %s\n\n", name)
	} else {
		fmt.Fprintln(w, name)
	}
	p := indentFor(md)
	fmt.Fprintf(w, "%sA: %s: %s\n", p, d.A.Name, sideLine(d.A))
	fmt.Fprintf(w, "%sB: %s: %s\n", p, d.B.Name, sideLine(d.B))
	for _, s := range []struct {
		l string
		s profile.Summary
	}{{"A", d.A}, {"B", d.B}} {
		for _, u := range s.s.Unavailable {
			fmt.Fprintf(w, "%s%s unavailable: %s\n", p, s.l, u)
		}
	}
	if d.A.N > 0 && d.B.N > 0 {
		if d.A.Samples > 0 && d.B.Samples > 0 {
			fmt.Fprintf(w, "%ssamples: %s -> %s (%s)", p, samplesCell(math.Round(d.A.Samples)), samplesCell(math.Round(d.B.Samples)), Pct(d.B.Samples/d.A.Samples-1))
			if a, b := d.A.PerOp(), d.B.PerOp(); !math.IsNaN(a) && !math.IsNaN(b) {
				fmt.Fprintf(w, "; per operation: %s -> %s (%s)", Num(a), Num(b), Pct(b/a-1))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s%s\n", p, orderWords[d.By])
		if d.A.CutOff > 0 || d.B.CutOff > 0 {
			fmt.Fprintf(w, "%sa symbol missing from a cut table was below its cut-off: its share is shown as <X%% and its change as a range\n", p)
		}
		if d.A.N > 1 && d.B.N > 1 {
			fmt.Fprintf(w, "%sshares are means over the profiles, with their min-max; \"~\" marks a change inside that spread\n", p)
		}
	}
	for _, s := range [][]string{d.A.Warnings, d.B.Warnings, d.Warnings} {
		for _, warn := range s {
			fmt.Fprintf(w, "%swarning: %s\n", p, warn)
		}
	}
}

func diffHeader(d *profile.Diff) []string {
	h := []string{"Symbol", "k/u", "A%"}
	if d.A.N > 1 {
		h = append(h, "A range")
	}
	h = append(h, "B%")
	if d.B.N > 1 {
		h = append(h, "B range")
	}
	h = append(h, "Δ pp", "A samples", "B samples", "change")
	if d.A.Ops > 0 && d.B.Ops > 0 {
		h = append(h, "per op")
	}
	return append(h, "note")
}

func diffRow(d *profile.Diff, r profile.Row, md bool) []string {
	sym := r.Symbol
	if sym == "" {
		sym = r.DSO
	}
	if !md {
		sym = clipName(sym)
	}
	c := []string{sym, ku(r.Kernel), shareCell(r.A)}
	if d.A.N > 1 {
		c = append(c, rangeCell(r.A))
	}
	c = append(c, shareCell(r.B))
	if d.B.N > 1 {
		c = append(c, rangeCell(r.B))
	}
	delta := fmt.Sprintf("%+.2f", r.Delta)
	if r.Ranged() {
		delta = fmt.Sprintf("%+.2f..%+.2f", r.DeltaLo, r.DeltaHi)
	}
	c = append(c, delta, sideSamples(r.A), sideSamples(r.B), Pct(r.SamplesChange))
	if d.A.Ops > 0 && d.B.Ops > 0 {
		c = append(c, Pct(r.PerOpChange))
	}
	var note []string
	switch r.Mark {
	case profile.MarkBelowA:
		note = append(note, fmt.Sprintf("below %.2f%% in A", r.A.Below))
	case profile.MarkBelowB:
		note = append(note, fmt.Sprintf("below %.2f%% in B", r.B.Below))
	case profile.MarkNew:
		note = append(note, "new: not sampled in A")
	case profile.MarkGone:
		note = append(note, "gone: not sampled in B")
	case profile.MarkFew:
		note = append(note, profile.FewNote(r))
	}
	if r.WithinSpread {
		note = append(note, "~ within spread")
	}
	if !math.IsNaN(r.SamplesChange) && r.SamplesChange > 0 && r.Delta < 0 {
		note = append(note, "share fell, samples rose")
	} else if !math.IsNaN(r.PerOpChange) && r.PerOpChange > 0 && r.Delta < 0 {
		note = append(note, "share fell, cost per op rose")
	}
	return append(c, strings.Join(note, "; "))
}

func shareCell(s profile.Stat) string {
	if s.Listed == 0 {
		if s.Below > 0 {
			return fmt.Sprintf("<%.2f%%", s.Below)
		}
		return "0"
	}
	return fmt.Sprintf("%.2f%%", s.Share)
}

func rangeCell(s profile.Stat) string {
	if s.Listed == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f-%.2f", s.Min, s.Max)
}

func sideSamples(s profile.Stat) string {
	if s.Listed == 0 && s.SamplesBelow > 0 {
		return "<" + samplesCell(math.Round(s.SamplesBelow))
	}
	return samplesCell(s.Samples)
}

// writeColumns writes rows as aligned columns: text columns (those whose
// header says what they name, or is empty above the rows' names)
// left-aligned, figures right-aligned, the last column unpadded.
func writeColumns(w io.Writer, indent string, rows [][]string) {
	left := map[string]bool{"Symbol": true, "k/u": true, "Command": true, "Shared Object": true, "note": true,
		"": true, "distribution": true} // a row's name; a histogram's bars
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			switch {
			case i == len(r)-1 && left[rows[0][i]]:
				b.WriteString(c)
			case left[rows[0][i]]:
				b.WriteString(c + pad)
			default:
				b.WriteString(pad + c)
			}
			if i < len(r)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func statJSON(s profile.Stat) map[string]any {
	m := map[string]any{"listed": s.Listed, "n": s.N, "share_pct": s.Share, "min_pct": s.Min, "max_pct": s.Max,
		"samples": jnum(s.Samples), "samples_per_op": jnum(s.PerOp)}
	if s.Listed == 0 {
		m["below_pct"] = s.Below
		m["samples_below"] = jnum(s.SamplesBelow)
	}
	return m
}

func csvNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
