package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/sysinfo"
)

// Layout of the text forms of kdelta env and env diff: at most textWidth columns of plain ASCII, so
// they paste into a mail unchanged.
const (
	textWidth  = 100
	labelWidth = 20 // env: label column
	fieldWidth = 26 // env diff: field column, at least
	// maxFieldWidth is the widest the field column grows for long names
	// (CONFIG_HAVE_PREEMPT_DYNAMIC_KEY); longer names overflow it.
	maxFieldWidth = 40
)

// WriteEnv writes fp as `kdelta env` prints it: one section per topic,
// one fact per line, derived facts followed by how they were decided, and
// the performance-relevant kernel config options at the end.
func WriteEnv(w io.Writer, fp *sysinfo.Fingerprint) error {
	bw := bufio.NewWriter(w)
	section := ""
	es := fp.Entries()
	for i := 0; i < len(es); i++ {
		e := es[i]
		if e.Section != section {
			section = e.Section
			fmt.Fprintln(bw, section)
		}
		// The rcutree module parameters go on one wrapped line: there
		// are two dozen of them and few ever change.
		if strings.HasPrefix(e.Name, "rcutree.") {
			var kv []string
			for ; i < len(es) && strings.HasPrefix(es[i].Name, "rcutree."); i++ {
				kv = append(kv, strings.TrimPrefix(es[i].Name, "rcutree.")+"="+es[i].Fact.String())
			}
			i--
			envWrapped(bw, "  "+pad("rcutree", labelWidth)+" ", strings.Join(kv, " "))
			continue
		}
		text := e.Fact.String()
		if e.Fact.Known() && e.Fact.Source != "" && !strings.HasPrefix(e.Fact.Source, "/") {
			text += "  [" + e.Fact.Source + "]"
		}
		envWrapped(bw, "  "+pad(e.Label, labelWidth)+" ", text)
	}

	fmt.Fprintln(bw, "kernel config (performance-relevant options)")
	if fp.Config.Unknown != "" {
		envWrapped(bw, "  ", "unknown: "+fp.Config.Unknown)
	}
	keys := slices.Sorted(maps.Keys(fp.Config.Perf))
	for _, k := range keys {
		v := fp.Config.Perf[k]
		line := k + "=" + v
		if v == "n" {
			line = "# " + k + " is not set"
		}
		envWrapped(bw, "  ", line)
	}
	if len(fp.Problems) > 0 {
		fmt.Fprintln(bw, "problems")
		for _, p := range fp.Problems {
			envWrapped(bw, "  ", p)
		}
	}
	return bw.Flush()
}

// WriteEnvDiff writes diffs as `kdelta env diff` prints them: the
// performance-relevant differences marked '!' (and the unchanged run-time
// preemption mode marked '='), then the others, then the kernel config
// options.
func WriteEnvDiff(w io.Writer, diffs []sysinfo.Difference) error {
	bw := bufio.NewWriter(w)
	if len(diffs) == 0 {
		fmt.Fprintln(bw, "no differences")
		return bw.Flush()
	}
	var relevant, other, config []sysinfo.Difference
	for _, d := range diffs {
		switch {
		case d.Config:
			config = append(config, d)
		case d.Relevant || d.Same:
			relevant = append(relevant, d)
		default:
			other = append(other, d)
		}
	}
	if len(relevant) > 0 {
		fmt.Fprintln(bw, "performance-relevant (! differs, = same):")
		width := columnWidth(relevant)
		for _, d := range relevant {
			writeDifference(bw, d, width)
		}
	}
	if len(other) > 0 {
		fmt.Fprintln(bw, "other differences:")
		width := columnWidth(other)
		for _, d := range other {
			writeDifference(bw, d, width)
		}
	}
	if len(config) > 0 {
		n := 0
		for _, d := range config {
			if d.Relevant {
				n++
			}
		}
		fmt.Fprintf(bw, "kernel config options that differ (%d, %d marked ! are performance-relevant):\n", len(config), n)
		width := columnWidth(config)
		for _, d := range config {
			writeDifference(bw, d, width)
		}
	}
	return bw.Flush()
}

// columnWidth returns the width of the field column for diffs: the
// longest field that is not unusually long, and at least fieldWidth.
func columnWidth(diffs []sysinfo.Difference) int {
	w := fieldWidth
	for _, d := range diffs {
		if n := len(d.Field); n > w && n <= maxFieldWidth {
			w = n
		}
	}
	return w
}

// writeDifference writes one difference on one line when it fits, else
// with A and B on lines of their own.
func writeDifference(w io.Writer, d sysinfo.Difference, width int) {
	mark := " "
	switch {
	case d.Same:
		mark = "="
	case d.Relevant:
		mark = "!"
	}
	a, b := ascii(d.A), ascii(d.B)
	line := mark + " " + pad(d.Field, width) + " " + a + " -> " + b
	if len(line) <= textWidth {
		fmt.Fprintln(w, line)
	} else {
		fmt.Fprintln(w, mark+" "+d.Field)
		envWrapped(w, "      A: ", a)
		envWrapped(w, "      B: ", b)
	}
	if d.Note != "" {
		envWrapped(w, "      ", d.Note)
	}
}

// envWrapped writes prefix and text, wrapping text at spaces so that no
// line passes textWidth; continuation lines are indented to the text.
func envWrapped(w io.Writer, prefix, text string) {
	text = ascii(text)
	indent := strings.Repeat(" ", len(prefix))
	avail := textWidth - len(prefix)
	if avail < 20 {
		avail = 20
	}
	lines := envWrap(text, avail)
	if len(lines) == 0 {
		lines = []string{""}
	}
	for i, l := range lines {
		p := prefix
		if i > 0 {
			p = indent
		}
		fmt.Fprintln(w, strings.TrimRight(p+l, " "))
	}
}

// envWrap splits text into lines of at most width bytes, breaking at spaces
// and cutting words longer than a line.
func envWrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		for len(word) > width {
			if cur.Len() > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			lines = append(lines, word[:width])
			word = word[width:]
		}
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// pad right-pads s with spaces to n columns.
func pad(s string, n int) string {
	s = ascii(s)
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// ascii replaces what is not printable ASCII with '?', so that values read
// from firmware (DMI strings) cannot break the layout.
func ascii(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
