package profile

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// An AnnotatedLineChange is one line of a symbol lined up in two
// annotations, A and B: an instruction, or a source line standing for
// the instructions under it (Total).
type AnnotatedLineChange struct {
	// Source is the source line the instruction is under ("" before the
	// first), or the source line itself when Total.
	Source string
	// Text is the instruction's text on the side that has it (A's when
	// both do); "" for a Total or for offsets without text.
	Text  string
	Jump  string
	Total bool
	// OffsetA and OffsetB are the instruction's offsets, -1 on a side
	// that has no such line or did not show it.
	OffsetA, OffsetB int64
	// InA and InB say which sides have the line.
	InA, InB           bool
	PercentA, PercentB float64
	SamplesA, SamplesB int64
}

// Delta is the change of the line's share of its symbol's samples, in
// percentage points, B minus A.
func (c AnnotatedLineChange) Delta() float64 { return c.PercentB - c.PercentA }

// DiffAnnotations lines up two annotations of a symbol and returns their
// lines ordered by how much their share changed, most first; lines with
// no samples on either side are left out.
//
// An instruction pairs with the one of the same text under the same
// source line (the k-th such with the k-th); what is left pairs by text
// alone, then by offset (which is all a perf script-only annotation
// has). Text is compared without absolute addresses, which move from
// build to build ("call 413b00 <f>" is "call <f>"). When the annotations
// have several source lines, each also gets a Total row: the sum of the
// instructions under it on each side.
func DiffAnnotations(a, b *Annotation) []AnnotatedLineChange {
	ia, ib := entries(a), entries(b)
	var rows []AnnotatedLineChange
	usedB := make([]bool, len(ib))
	matchA := make([]int, len(ia))
	for i := range matchA {
		matchA[i] = -1
	}
	keys := []func(e entry) string{
		func(e entry) string { return e.src + "\x00" + e.key },
		func(e entry) string { return e.key },
		func(e entry) string { return "@" + strconv.FormatInt(e.off, 10) },
	}
	for pass, keyOf := range keys {
		free := map[string][]int{}
		for j, e := range ib {
			if !usedB[j] && keyed(e, keyOf) {
				k := keyOf(e)
				free[k] = append(free[k], j)
			}
		}
		for i, e := range ia {
			if matchA[i] >= 0 || !keyed(e, keyOf) {
				continue
			}
			k := keyOf(e)
			// Offsets pair lines only where one side has no text: two
			// texts that differ are two instructions.
			if js := free[k]; len(js) > 0 && (pass < 2 || e.text == "" || ib[js[0]].text == "") {
				matchA[i], usedB[js[0]], free[k] = js[0], true, js[1:]
			}
		}
	}
	for i, e := range ia {
		r := AnnotatedLineChange{Source: e.src, Text: e.text, Jump: e.jump, OffsetA: e.off, OffsetB: -1, InA: true, PercentA: e.pct, SamplesA: e.samples}
		if j := matchA[i]; j >= 0 {
			f := ib[j]
			r.InB, r.OffsetB, r.PercentB, r.SamplesB = true, f.off, f.pct, f.samples
			if r.Text == "" {
				r.Text = f.text
			}
		}
		rows = append(rows, r)
	}
	for j, f := range ib {
		if !usedB[j] {
			rows = append(rows, AnnotatedLineChange{Source: f.src, Text: f.text, Jump: f.jump, OffsetA: -1, OffsetB: f.off, InB: true, PercentB: f.pct, SamplesB: f.samples})
		}
	}
	rows = append(rows, totals(rows)...)
	kept := rows[:0]
	for _, r := range rows {
		if r.PercentA != 0 || r.PercentB != 0 || r.SamplesA != 0 || r.SamplesB != 0 {
			kept = append(kept, r)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		di, dj := math.Abs(kept[i].Delta()), math.Abs(kept[j].Delta())
		if di != dj {
			return di > dj
		}
		return math.Max(kept[i].PercentA, kept[i].PercentB) > math.Max(kept[j].PercentA, kept[j].PercentB)
	})
	return kept
}

// An entry is one instruction of an annotation, with the source line
// above it.
type entry struct {
	src, text, key, jump string
	off                  int64
	pct                  float64
	samples              int64
}

func keyed(e entry, keyOf func(entry) string) bool {
	k := keyOf(e)
	return !strings.HasSuffix(k, "\x00") && k != "" && k != "@-1"
}

func entries(a *Annotation) []entry {
	var es []entry
	src := ""
	for _, l := range a.Lines {
		if l.Source {
			src = l.Text
			continue
		}
		es = append(es, entry{src: src, text: l.Text, key: insnKey(l.Text), jump: l.Jump, off: l.Offset, pct: l.Percent, samples: l.Samples})
	}
	return es
}

var (
	// bareAddrRE is an absolute address objdump prints as a call or jump
	// target ("call 413b00 <f>"), not an immediate ($0x10) or a
	// displacement (0x60(%r14)).
	bareAddrRE = regexp.MustCompile(`(^|[\s,])[0-9a-f]{4,16}(\s|$)`)
	// ripRE is a RIP-relative displacement, which moves with the code.
	ripRE = regexp.MustCompile(`-?0x[0-9a-f]+\(%rip\)`)
)

// insnKey is an instruction's text without what moves between builds:
// absolute addresses, RIP-relative displacements, objdump's "# addr
// <sym>" comments.
func insnKey(text string) string {
	if i := strings.Index(text, " # "); i >= 0 {
		text = text[:i]
	}
	text = ripRE.ReplaceAllString(text, "(%rip)")
	return strings.Join(strings.Fields(bareAddrRE.ReplaceAllString(text, "$1$2")), " ")
}

// totals sums the rows under each source line, per side.
func totals(rows []AnnotatedLineChange) []AnnotatedLineChange {
	bySrc := map[string]*AnnotatedLineChange{}
	var order []string
	for _, r := range rows {
		if r.Source == "" {
			continue
		}
		t := bySrc[r.Source]
		if t == nil {
			t = &AnnotatedLineChange{Source: r.Source, Total: true, OffsetA: -1, OffsetB: -1}
			bySrc[r.Source] = t
			order = append(order, r.Source)
		}
		t.InA, t.InB = t.InA || r.InA, t.InB || r.InB
		t.PercentA += r.PercentA
		t.PercentB += r.PercentB
		t.SamplesA += r.SamplesA
		t.SamplesB += r.SamplesB
	}
	// One source line over every instruction (objdump's function-name
	// line) is the symbol itself, no line of it.
	if len(order) < 2 {
		return nil
	}
	out := make([]AnnotatedLineChange, 0, len(order))
	for _, s := range order {
		out = append(out, *bySrc[s])
	}
	return out
}
