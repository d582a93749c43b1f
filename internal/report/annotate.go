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
const maxAnnotateText = 44

// WriteAnnotation renders one symbol's annotation (profile annotate) as
// perf annotate's TUI does: each instruction with its share of the
// symbol's samples and its samples, the source lines between them.
func WriteAnnotation(w io.Writer, a *profile.Annotation) error {
	annotationHeader(w, a)
	fmt.Fprintf(w, "  %7s %7s  %6s  %s\n", "Share", "Samples", "Offset", "Instruction")
	for _, l := range a.Lines {
		if l.Source {
			fmt.Fprintf(w, "  %24s%s\n", "", clipEnd(l.Text, maxAnnotateText+2))
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
	if a.DSO != "" {
		name += " (" + a.DSO + ")"
	}
	fmt.Fprintf(w, "%s\n  %s", name, a.Benchmark)
	if a.Benchmark != a.Ref {
		fmt.Fprintf(w, " in %s", a.Ref)
	}
	fmt.Fprintf(w, ": %d samples", a.Samples)
	if a.Event != "" {
		fmt.Fprintf(w, " of %s", a.Event)
	}
	if a.Profiles > 1 {
		fmt.Fprintf(w, " over %d profiles", a.Profiles)
	}
	fmt.Fprintf(w, ", lines from %s\n", a.Source)
	if a.NoText != "" {
		fmt.Fprintf(w, "  no instruction text: %s\n", a.NoText)
		if a.Kernel {
			fmt.Fprintln(w, "  (perf disassembles the kernel from a vmlinux or /proc/kcore; give the kernel's vmlinux with --vmlinux FILE, e.g. from its -dbg package)")
		}
	}
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
		text := insnText(c.Jump, c.Text)
		if c.Total {
			text = "Σ " + clipEnd(c.Source, maxAnnotateText-2)
		}
		fmt.Fprintf(w, "  %7s %7s %+7.2f  %-11s  %s\n", side(c.InA, c.PercentA), side(c.InB, c.PercentB), c.Delta(), offset(c.OffsetA)+"/"+offset(c.OffsetB), text)
		if !c.Total && c.Source != "" && len(srcs) > 1 {
			fmt.Fprintf(w, "  %38s  under %s\n", "", clipEnd(c.Source, maxAnnotateText-6))
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
