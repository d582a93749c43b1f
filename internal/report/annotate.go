package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/profile"
)

// maxAnnotateText bounds an instruction's or source line's text, so that
// an annotation stays within 72 columns (a mail's); longer text loses its
// end to "~".
const maxAnnotateText = 43

// maxDiffText bounds an instruction's text in a diff's row, after its
// three shares and two offsets.
const maxDiffText = 30

// WriteAnnotation renders one symbol's annotation (profile annotate) as
// perf annotate's TUI does: each instruction with its share of the
// symbol's samples and its samples, the source lines between them.
func WriteAnnotation(w io.Writer, a *profile.Annotation) error {
	annotationHeader(w, a)
	fmt.Fprintf(w, "  %7s %7s  %6s  %s\n", "Share", "Samples", "Offset", "Instruction")
	for _, l := range a.Lines {
		if l.Source {
			fmt.Fprintf(w, "  %25s%s\n", "", clipEnd(l.Text, maxAnnotateText+2))
			continue
		}
		share, samples := "", ""
		if l.Percent != 0 || l.Samples != 0 {
			share = strconv.FormatFloat(l.Percent, 'f', 2, 64) + "%"
		}
		if l.Samples != 0 {
			samples = strconv.FormatInt(l.Samples, 10)
		}
		fmt.Fprintf(w, "  %7s %7s  %6s  %s\n", share, samples, offset(l.Offset), insnText(l.Jump, l.Text))
	}
	if a.Cut > 0 {
		fmt.Fprintf(w, "  (%d more lines not kept)\n", a.Cut)
	}
	return nil
}

// annotationHeader names the symbol, where it was sampled and where its
// lines came from.
func annotationHeader(w io.Writer, a *profile.Annotation) {
	name := a.Symbol
	if name == "" {
		name = "(a symbol the text does not name)"
	}
	if a.DSO != "" {
		name += " (" + a.DSO + ")"
	}
	fmt.Fprintln(w, name)
	where := a.Benchmark
	if a.Benchmark != a.Ref {
		where += " in " + a.Ref
	}
	wrapWords(w, "  ", where)
	facts := fmt.Sprintf("%d samples", a.Samples)
	if a.Samples == 0 {
		facts = "shares only"
	}
	if a.Event != "" {
		facts += " of " + a.Event
	}
	if a.Profiles > 1 {
		facts += fmt.Sprintf(" over %d profiles", a.Profiles)
	}
	wrapWords(w, "  ", facts+", lines from "+a.Source)
	if a.NoText != "" {
		wrapWords(w, "  ", "no instruction text: "+a.NoText)
		if a.Kernel {
			wrapWords(w, "  ", "(perf disassembles the kernel from a vmlinux or /proc/kcore; give the kernel's vmlinux with --vmlinux FILE, e.g. from its -dbg package)")
		}
	}
}

// wrapWords prints text after indent, continued on lines indented two
// more when it would pass 72 columns; a word longer than a line is left
// whole.
func wrapWords(w io.Writer, indent, text string) {
	const width = 72
	line := indent
	for _, word := range strings.Fields(text) {
		switch {
		case strings.TrimSpace(line) == "":
			line += word
		case len([]rune(line))+1+len([]rune(word)) > width:
			fmt.Fprintln(w, line)
			line = indent + "  " + word
		default:
			line += " " + word
		}
	}
	fmt.Fprintln(w, line)
}

// WriteAnnotationDiff renders the lines of a symbol lined up in a and b
// (profile annotate --diff), those whose share changed most first; top
// <= 0 shows every line with samples.
func WriteAnnotationDiff(w io.Writer, a, b *profile.Annotation, changes []profile.AnnotatedLineChange, top int) error {
	fmt.Fprintf(w, "A: ")
	annotationHeader(w, a)
	fmt.Fprintf(w, "B: ")
	annotationHeader(w, b)
	fmt.Fprintf(w, "lines ranked by the change of their share of the symbol's samples\n")
	fmt.Fprintf(w, "  %7s %7s %7s  %-11s  %s\n", "A", "B", "Δ", "Offset A/B", "Line")
	// The source line above each instruction is worth a line of its own
	// only when there are several.
	srcs := map[string]bool{}
	for _, c := range changes {
		srcs[c.Source] = true
	}
	if top > 0 && len(changes) > top {
		changes = changes[:top]
	}
	for _, c := range changes {
		text := clipEnd(insnText(c.Jump, c.Text), maxDiffText)
		if c.Total {
			text = "Σ " + clipEnd(c.Source, maxDiffText-2)
		}
		fmt.Fprintf(w, "  %7s %7s %+7.2f  %-11s  %s\n", side(c.InA, c.PercentA), side(c.InB, c.PercentB), c.Delta(), offset(c.OffsetA)+"/"+offset(c.OffsetB), text)
		if !c.Total && c.Source != "" && len(srcs) > 1 {
			fmt.Fprintf(w, "  %38s  under %s\n", "", clipEnd(c.Source, maxDiffText-6))
		}
	}
	if len(changes) == 0 {
		fmt.Fprintln(w, "  (no line has samples on either side)")
	}
	return nil
}

func side(in bool, pct float64) string {
	if !in {
		return "-"
	}
	return strconv.FormatFloat(pct, 'f', 2, 64) + "%"
}

func offset(off int64) string {
	if off < 0 {
		return "-"
	}
	return "0x" + strconv.FormatInt(off, 16)
}

// insnText is an instruction as the TUI shows it: the jump arrow, or a
// blank, before its text; "?" when only its offset is known.
func insnText(jump, text string) string {
	if text == "" {
		return "?"
	}
	if jump == "" {
		jump = " "
	}
	return jump + " " + clipEnd(text, maxAnnotateText)
}

// clipEnd cuts s to n characters, marking the cut with "~".
func clipEnd(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "~"
}
