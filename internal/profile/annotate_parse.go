package profile

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kdelta/kdelta/internal/result"
)

// The two layouts of annotate text. perf annotate --stdio prints every
// line as "PERCENT : CONTENT" (source lines with a blank percentage and
// their line number); the TUI, and what users paste from it into a mail,
// prints "PERCENT │ CONTENT", where only the columns tell a source line
// from an instruction (see barLine).
var (
	// stdioLineRE is "    0.71 :   5fe580: mov ..." or "         : 3   text";
	// several events give several percentages, of which the first counts.
	stdioLineRE = regexp.MustCompile(`^\s*((?:\d+(?:\.\d+)?\s+)*)\s*:(.*)$`)
	stdioInsnRE = regexp.MustCompile(`^\s*([0-9a-f]+):\s*(.*)$`)
	// symStartRE is objdump's "00000000005fe580 <name>:" line.
	symStartRE = regexp.MustCompile(`^([0-9a-f]{6,})\s+<(.+)>:$`)
	// headerRE is --stdio's "Percent |	Source code & Disassembly of DSO
	// for EVENT (N samples, ...)".
	headerRE  = regexp.MustCompile(`^\s*Percent\s*\|\s*Source code & Disassembly of (.*) for (\S+) \((\d+) samples`)
	lineNrRE  = regexp.MustCompile(`^\d+\s+`)
	labelRE   = regexp.MustCompile(`^\s*([0-9a-f]+):\s`)
	locTailRE = regexp.MustCompile(`\s+//\s+\S+:\d+\s*$`)
)

// jumpArrows are the arrows perf draws before calls (→) and jumps back
// (↑) or forward (↓).
const jumpArrows = "→↑↓"

// ParseAnnotate reads the text of `perf annotate --stdio`, or of its TUI
// as pasted into a mail ("64.50 │   mov 0x60(%r14),%r12", source lines
// between the instructions, "→ call", "↑ jmp"), one annotation per
// symbol: a new --stdio header, or prose between two blocks of
// annotated lines, starts the next. It reads each line once, keeping
// only the current block's column, so its time is linear in the text.
//
// Offsets are relative to the symbol's start (the objdump "ADDR <sym>:"
// line, else the first instruction's address); a TUI line that shows no
// address has offset -1. The lines' samples are left 0: the text has
// only shares (and, from --stdio's header, the symbol's samples).
func ParseAnnotate(name string, data []byte) ([]*result.ProfileAnnotation, error) {
	p := &annotateParser{}
	for i, raw := range strings.Split(string(data), "\n") {
		p.line(i+1, raw)
	}
	p.end()
	if len(p.out) == 0 {
		return nil, &result.SyntaxError{File: name, Line: 1, Msg: "no perf annotate lines (such as \"   64.50 :   ffffffff8110: mov 0x60(%r14),%r12\" or \" 64.50 │   mov 0x60(%r14),%r12\")"}
	}
	return p.out, nil
}

type annotateParser struct {
	out []*result.ProfileAnnotation
	cur *result.ProfileAnnotation
	// start is the symbol's first address, once known (a kernel's
	// addresses do not fit an int64).
	start    uint64
	hasStart bool
	// bar holds the TUI lines of the current block until it ends: which
	// column a source line starts in is known only from the block's
	// other lines.
	bar []barLine
	// prose says a non-annotate line came after the current block's
	// last annotated line.
	prose bool
}

// A barLine is one TUI line: its percentage and what follows the bar.
type barLine struct {
	pct     float64
	hasPct  bool
	content string
}

func (p *annotateParser) block() *result.ProfileAnnotation {
	if p.cur == nil || p.prose {
		p.end()
		p.cur = &result.ProfileAnnotation{Source: "perf annotate"}
	}
	p.prose = false
	return p.cur
}

func (p *annotateParser) end() {
	p.flushBar()
	if p.cur != nil && len(p.cur.Lines) > 0 {
		p.out = append(p.out, p.cur)
	}
	p.cur, p.hasStart, p.prose = nil, false, false
}

func (p *annotateParser) line(n int, raw string) {
	l := strings.TrimRight(quoteRE.ReplaceAllString(raw, ""), " \t\r")
	if strings.TrimSpace(l) == "" {
		return
	}
	if m := headerRE.FindStringSubmatch(l); m != nil {
		p.end()
		p.cur = &result.ProfileAnnotation{Source: "perf annotate", DSO: m[1]}
		p.cur.Kernel = KernelDSO(m[1])
		p.cur.Samples, _ = strconv.ParseInt(m[3], 10, 64)
		return
	}
	if strings.HasPrefix(strings.TrimSpace(l), "-----") && p.cur != nil && len(p.cur.Lines) == 0 {
		return
	}
	if pct, rest, ok := strings.Cut(l, "│"); ok {
		bl := barLine{content: rest}
		if f := strings.TrimSpace(pct); f != "" {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				p.prose = true
				return
			}
			bl.pct, bl.hasPct = v, true
		}
		p.block()
		p.bar = append(p.bar, bl)
		return
	}
	m := stdioLineRE.FindStringSubmatch(l)
	if m == nil {
		p.prose = true
		return
	}
	a := p.block()
	content := m[2]
	if pcts := strings.Fields(m[1]); len(pcts) > 0 {
		v, _ := strconv.ParseFloat(pcts[0], 64)
		if im := stdioInsnRE.FindStringSubmatch(content); im != nil {
			addr, err := strconv.ParseUint(im[1], 16, 64)
			if err == nil {
				p.insn(a, addr, true, im[2], v)
				return
			}
		}
		p.insn(a, 0, false, content, v)
		return
	}
	text := lineNrRE.ReplaceAllString(strings.TrimSpace(content), "")
	p.source(a, text)
}

// source adds a source line, noting the symbol an objdump header names.
func (p *annotateParser) source(a *result.ProfileAnnotation, text string) {
	if text == "" {
		return
	}
	// objdump's section and symbol headers are no source lines; the
	// symbol's gives its name and start.
	if m := symStartRE.FindStringSubmatch(text); m != nil {
		if v, err := strconv.ParseUint(m[1], 16, 64); err == nil {
			p.start, p.hasStart = v, true
		}
		if a.Symbol == "" {
			a.Symbol = m[2]
		}
		return
	}
	if strings.HasPrefix(text, "Disassembly of section ") {
		return
	}
	a.Lines = append(a.Lines, result.AnnotatedLine{Source: true, Offset: -1, Text: text})
}

// insn adds an instruction; text may start with a jump arrow.
func (p *annotateParser) insn(a *result.ProfileAnnotation, addr uint64, hasAddr bool, text string, pct float64) {
	text = strings.TrimSpace(locTailRE.ReplaceAllString(text, ""))
	l := result.AnnotatedLine{Offset: -1, Percent: pct}
	if r, size := utf8.DecodeRuneInString(text); size > 0 && strings.ContainsRune(jumpArrows, r) {
		l.Jump, text = string(r), strings.TrimSpace(text[size:])
	}
	l.Text = strings.Join(strings.Fields(text), " ")
	if hasAddr {
		if !p.hasStart {
			p.start, p.hasStart = addr, true
		}
		l.Offset = int64(addr - p.start)
	}
	a.Lines = append(a.Lines, l)
}

// flushBar classifies the TUI lines of the block. Behind the bar, perf
// prints an address column (blank, or a jump target's "236:"), two
// blanks, then either a source line or, two columns further, an
// instruction: the graph column holds an arrow or two blanks. So the
// column of a source line is that of any arrow, or of a label plus two;
// a block with neither takes its least indented line as a source line
// when other lines are indented two more.
func (p *annotateParser) flushBar() {
	if len(p.bar) == 0 {
		return
	}
	col, minIndent := -1, -1
	for _, b := range p.bar {
		if m := labelRE.FindStringSubmatch(b.content); m != nil && col < 0 {
			col = utf8.RuneCountInString(m[0])
			continue
		}
		indent, rest := indentOf(b.content)
		if r, _ := utf8.DecodeRuneInString(rest); strings.ContainsRune(jumpArrows, r) && col < 0 {
			col = indent
		}
		if rest != "" && (minIndent < 0 || indent < minIndent) {
			minIndent = indent
		}
	}
	if col < 0 {
		col = minIndent
	}
	a := p.cur
	for _, b := range p.bar {
		if m := labelRE.FindStringSubmatch(b.content); m != nil {
			off, _ := strconv.ParseInt(m[1], 16, 64)
			// The TUI shows offsets, not addresses.
			p.insn(a, 0, false, b.content[len(m[0]):], b.pct)
			a.Lines[len(a.Lines)-1].Offset = off
			continue
		}
		indent, rest := indentOf(b.content)
		if rest == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(rest)
		if b.hasPct || strings.ContainsRune(jumpArrows, r) || indent >= col+2 {
			p.insn(a, 0, false, rest, b.pct)
			continue
		}
		p.source(a, strings.TrimSpace(rest))
	}
	p.bar = p.bar[:0]
}

// indentOf returns how many columns of blanks start s, and the rest.
func indentOf(s string) (int, string) {
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	return utf8.RuneCountInString(s[:len(s)-len(rest)]), rest
}
