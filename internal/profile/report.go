package profile

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// Column kinds of a perf report table, from its header.
const (
	colOther = iota
	colOverhead
	colChildren
	colSamples
	colPeriod
	colComm
	colDSO
	colSym
	colPidComm
)

// headerKinds maps perf report's column titles to what they hold.
var headerKinds = map[string]int{
	"overhead":      colOverhead,
	"self":          colOverhead,
	"children":      colChildren,
	"samples":       colSamples,
	"period":        colPeriod,
	"command":       colComm,
	"shared object": colDSO,
	"symbol":        colSym,
	"pid:command":   colPidComm,
}

var (
	// fieldSep separates columns: perf pads every column and puts two
	// spaces between them; a tab is what some mail clients leave.
	fieldSep   = regexp.MustCompile(`\s{2,}|\t`)
	pctRE      = regexp.MustCompile(`^(\d+(?:\.\d+)?)%$`)
	intRE      = regexp.MustCompile(`^\d+$`)
	markerRE   = regexp.MustCompile(`^\[([k.guH])\](?:\s+(.*))?$`)
	rowStartRE = regexp.MustCompile(`^\s*\d+(?:\.\d+)?%`)
	// shareRE is a row's share as anything number-like before a "%":
	// one that is not a percentage perf writes (pctRE) — a negative one,
	// NaN, inf, 1e308, a sign, a decimal comma — is refused rather than
	// dropped. A call-graph line ("--12.5%--f") starts with two dashes and
	// is not one.
	shareRE   = regexp.MustCompile(`^\s*([-+]?(?:\d[\d.,]*(?:[eE][-+]?\d+)?|(?i:nan|inf|infinity))%)(?:\s|$)`)
	samplesRE = regexp.MustCompile(`^#\s*Samples:\s*(\d+(?:\.\d+)?)([KMG]?)\s+of event '([^']*)'`)
	quoteRE   = regexp.MustCompile(`^(?:>\s?)+`)
	dotsRE    = regexp.MustCompile(`^[#.\s]*\.{3,}[#.\s]*$`)
)

// ParseReport reads the text of `perf report --stdio`, as perf prints it
// (any --sort keys, with or without --children, -n, call graphs) or as a
// user pasted it into a mail: header missing, lines quoted with "> ", long
// rows wrapped before the symbol. Every table in the text becomes one
// profile: a second "# Samples:" header, or prose between two tables,
// starts the next. name is the file as the user named it, for errors and
// for Source.
//
// A pasted table may be cut at a percentage, so each profile's CutOff is
// the smallest share it lists; Samples is counted from the Samples column
// when present (and marked estimated: the rows' samples divided by their
// share), or read from the "# Samples:" header.
func ParseReport(name string, data []byte) ([]*result.Profile, error) {
	p := &reportParser{name: name}
	for i, raw := range strings.Split(string(data), "\n") {
		if err := p.line(i+1, raw); err != nil {
			return nil, err
		}
	}
	p.endTable()
	if len(p.out) == 0 {
		return nil, &result.SyntaxError{File: name, Line: 1, Msg: "no perf report rows (lines such as \"  12.34%  comm  [kernel.kallsyms]  [k] symbol\")"}
	}
	return p.out, nil
}

type reportParser struct {
	name string
	out  []*result.Profile
	// cols are the column kinds of the current header; nil until one is
	// seen, then kept for a following table that has none. kinds is the
	// set of them, made with the header so that a row asks it in constant
	// time: a header may have as many columns as the table has rows.
	cols  []int
	kinds colKinds
	cur   *result.Profile
	// event and headerSamples come from "# Samples: 1K of event 'x'".
	event         string
	headerSamples float64
	headerExact   bool
	// pending is the row whose symbol was wrapped onto the next line.
	pending *result.ProfileSymbol
	// prose is set by a line of text after rows: the table ended.
	prose bool
}

func (p *reportParser) errorf(line int, format string, args ...any) error {
	return &result.SyntaxError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *reportParser) line(n int, raw string) error {
	l := strings.TrimRight(quoteRE.ReplaceAllString(strings.TrimRight(raw, "\r"), ""), " \t")
	trimmed := strings.TrimSpace(l)
	switch {
	case trimmed == "":
		return nil
	case dotsRE.MatchString(trimmed):
		return nil
	case strings.HasPrefix(trimmed, "#"):
		p.comment(trimmed)
		return nil
	}
	if m := shareRE.FindStringSubmatch(l); m != nil && !pctRE.MatchString(m[1]) {
		// Dropped, the symbol would read as below the table's cut-off.
		return p.errorf(n, "share %q: a share is a percentage from 0 to 100%%", m[1])
	}
	if rowStartRE.MatchString(l) {
		if p.prose {
			p.endTable()
		}
		sym, err := p.row(n, l)
		if err != nil {
			return err
		}
		if sym == nil {
			return nil
		}
		if p.cur == nil {
			p.startTable()
		}
		p.cur.Symbols = append(p.cur.Symbols, *sym)
		p.pending = nil
		if p.hasSym() && sym.Symbol == "" && sym.Overhead+sym.Children > 0 {
			p.pending = &p.cur.Symbols[len(p.cur.Symbols)-1]
		}
		return nil
	}
	if p.pending != nil && !strings.ContainsAny(trimmed[:1], "|-") {
		// The symbol of a row wrapped by a mail client.
		p.pending.Symbol = trimmed
		p.pending = nil
		return nil
	}
	p.pending = nil
	// Call-graph lines are indented or start with a graph character;
	// text at the margin after rows is prose that ends the table.
	if p.cur != nil && len(p.cur.Symbols) > 0 && l[0] != ' ' && l[0] != '\t' && !strings.ContainsAny(l[:1], "|-") {
		p.prose = true
	}
	return nil
}

// comment reads the header lines perf writes before a table.
func (p *reportParser) comment(l string) {
	if m := samplesRE.FindStringSubmatch(l); m != nil {
		if p.cur != nil && len(p.cur.Symbols) > 0 {
			p.endTable()
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		switch m[2] {
		case "K":
			v *= 1e3
		case "M":
			v *= 1e6
		case "G":
			v *= 1e9
		}
		p.headerSamples, p.headerExact, p.event = v, m[2] == "", m[3]
		return
	}
	body := strings.TrimSpace(strings.TrimPrefix(l, "#"))
	fields := fieldSep.Split(body, -1)
	if len(fields) < 2 {
		return
	}
	first := strings.ToLower(fields[0])
	if first != "overhead" && first != "children" && first != "self" && first != "samples" {
		return
	}
	if p.cur != nil && len(p.cur.Symbols) > 0 {
		p.endTable()
	}
	p.cols = p.cols[:0]
	for _, f := range fields {
		p.cols = append(p.cols, headerKinds[strings.ToLower(strings.TrimSpace(f))])
	}
	p.kinds = kindsOf(p.cols)
}

func (p *reportParser) hasSym() bool {
	return p.cols == nil || p.kinds.has(colSym)
}

func (p *reportParser) startTable() {
	p.cur = &result.Profile{Source: "perf report text " + p.name, Event: p.event}
	p.prose = false
}

// endTable closes the current table: its cut-off and its total samples.
func (p *reportParser) endTable() {
	p.pending = nil
	p.prose = false
	t := p.cur
	p.cur = nil
	if t == nil || len(t.Symbols) == 0 {
		return
	}
	cut := math.Inf(1)
	var pct float64
	var samples int64
	allSamples := true
	for _, s := range t.Symbols {
		v := s.Overhead
		if s.Children > v {
			v = s.Children
		}
		cut = math.Min(cut, v)
		pct += s.Overhead
		samples += s.Samples
		allSamples = allSamples && (s.Samples > 0 || s.Overhead == 0)
	}
	t.CutOff = cut
	switch {
	case p.headerExact && p.headerSamples > 0:
		t.Samples = int64(p.headerSamples)
	case allSamples && samples > 0 && pct > 0:
		// Every row's samples over its share: exact for a whole table,
		// an estimate for a cut one.
		t.Samples = int64(math.Round(float64(samples) * 100 / pct))
		t.SamplesEstimated = true
	case p.headerSamples > 0:
		t.Samples = int64(p.headerSamples)
		t.SamplesEstimated = true
	}
	p.out = append(p.out, t)
	p.headerSamples, p.headerExact = 0, false
}

// row reads one table row; nil for a row that holds nothing (a bare
// percentage, as perf's flat call-graph mode prints).
func (p *reportParser) row(n int, l string) (*result.ProfileSymbol, error) {
	fields, starts := splitFields(l)
	if len(fields) == 1 {
		fields, starts = squashed(fields[0]), nil
	}
	cols, kinds := p.cols, p.kinds
	if cols == nil {
		cols = guessColumns(fields)
		kinds = kindsOf(cols)
	}
	if len(fields) < 2 {
		return nil, nil
	}
	// Columns after the symbol are rare; when the symbol is last it takes
	// the rest of the line, spaces and all.
	symLast := cols[len(cols)-1] == colSym
	if len(fields) > len(cols) && symLast {
		last := len(cols) - 1
		rest := strings.Join(fields[last:], " ")
		if last < len(starts) {
			rest = strings.TrimSpace(l[starts[last]:])
		}
		fields = append(fields[:last], rest)
	}
	if len(fields) < len(cols) {
		// A line squashed to single spaces: split what precedes the
		// symbol marker on any space.
		fields = resplit(fields, len(cols))
	}
	s := &result.ProfileSymbol{}
	for i, c := range cols {
		if i >= len(fields) {
			break
		}
		f := fields[i]
		switch c {
		case colOverhead, colChildren:
			m := pctRE.FindStringSubmatch(f)
			if m == nil {
				return nil, p.errorf(n, "column %d: want a percentage, found %q", i+1, f)
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			if v > 100 {
				return nil, p.errorf(n, "column %d: share %q above 100%%", i+1, f)
			}
			if c == colOverhead {
				s.Overhead = v
			} else {
				s.Children = v
			}
		case colSamples:
			if !intRE.MatchString(f) {
				return nil, p.errorf(n, "column %d (Samples): want a count, found %q", i+1, f)
			}
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, p.errorf(n, "column %d (Samples): %v", i+1, err)
			}
			s.Samples = v
		case colComm:
			s.Command = f
		case colPidComm:
			if _, comm, ok := strings.Cut(f, ":"); ok {
				s.Command = comm
			} else {
				s.Command = f
			}
		case colDSO:
			s.DSO = f
		case colSym:
			if m := markerRE.FindStringSubmatch(f); m != nil {
				s.Symbol = strings.TrimSpace(m[2])
				s.Kernel = m[1] == "k" || m[1] == "g"
			} else {
				s.Symbol = f
			}
		}
	}
	if !kinds.has(colSym) {
		s.Kernel = KernelDSO(s.DSO)
	} else if s.DSO != "" && !s.Kernel && KernelDSO(s.DSO) {
		s.Kernel = true
	}
	if !kinds.has(colOverhead) && kinds.has(colChildren) {
		s.Overhead = s.Children
		s.Children = 0
	}
	return s, nil
}

// colKinds is a set of column kinds, a bit for each.
type colKinds uint32

func kindsOf(cols []int) colKinds {
	var k colKinds
	for _, c := range cols {
		k |= 1 << c
	}
	return k
}

func (k colKinds) has(c int) bool { return k&(1<<c) != 0 }

// splitFields splits a row into its columns and their offsets in l.
func splitFields(l string) ([]string, []int) {
	start := len(l) - len(strings.TrimLeft(l, " \t"))
	body := l[start:]
	var fields []string
	var starts []int
	pos := 0
	for _, loc := range fieldSep.FindAllStringIndex(body, -1) {
		fields = append(fields, body[pos:loc[0]])
		starts = append(starts, start+pos)
		pos = loc[1]
	}
	if pos < len(body) {
		fields = append(fields, body[pos:])
		starts = append(starts, start+pos)
	}
	return fields, starts
}

// squashed splits a row whose columns lost their padding (one space
// between them) on spaces, keeping the symbol marker with the rest of the
// line.
func squashed(f string) []string {
	words := strings.Fields(f)
	for i, w := range words {
		if len(w) == 3 && markerRE.MatchString(w) {
			return append(words[:i], strings.Join(words[i:], " "))
		}
	}
	return words
}

// resplit splits the fields before the symbol marker on single spaces
// until there are want fields.
func resplit(fields []string, want int) []string {
	var out []string
	for i, f := range fields {
		if markerRE.MatchString(f) || strings.HasPrefix(f, "[") && i == len(fields)-1 {
			out = append(out, fields[i:]...)
			break
		}
		out = append(out, strings.Fields(f)...)
	}
	if len(out) > want {
		return fields
	}
	return out
}

// guessColumns names the columns of a row that has no header: leading
// percentages (one: Overhead; two: Children and Self), then counts
// (Samples), then text up to the symbol marker (two fields: Command and
// Shared Object, perf's default sort; one: whichever it looks like).
func guessColumns(fields []string) []int {
	var cols []int
	i := 0
	var pcts int
	for i < len(fields) && pctRE.MatchString(fields[i]) {
		pcts++
		i++
	}
	switch pcts {
	case 1:
		cols = append(cols, colOverhead)
	default:
		cols = append(cols, colChildren, colOverhead)
		for j := 2; j < pcts; j++ {
			cols = append(cols, colOther)
		}
	}
	for i < len(fields) && intRE.MatchString(fields[i]) {
		cols = append(cols, colSamples)
		i++
	}
	sym := -1
	for j := i; j < len(fields); j++ {
		if markerRE.MatchString(fields[j]) || fields[j] == "[k]" || fields[j] == "[.]" {
			sym = j
			break
		}
	}
	if sym < 0 {
		// No marker: perhaps squashed; the last field is the symbol.
		sym = len(fields) - 1
		if sym < i {
			return cols
		}
	}
	switch text := fields[i:sym]; len(text) {
	case 0:
	case 1:
		if looksLikeDSO(text[0]) {
			cols = append(cols, colDSO)
		} else {
			cols = append(cols, colComm)
		}
	default:
		cols = append(cols, colComm, colDSO)
		for j := 2; j < len(text); j++ {
			cols = append(cols, colOther)
		}
	}
	return append(cols, colSym)
}

func looksLikeDSO(s string) bool {
	return strings.HasPrefix(s, "[") || strings.Contains(s, ".so") || strings.Contains(s, "/")
}

// userPseudo are the bracketed objects perf names that are not the kernel.
var userPseudo = map[string]bool{
	"[vdso]": true, "[vsyscall]": true, "[vvar]": true, "[unknown]": true, "[heap]": true,
	"[stack]": true, "[anon]": true, "[uprobes]": true, "[JIT] tid": true,
}

// KernelDSO tells whether perf's name for an object is the kernel or one
// of its modules ([kernel.kallsyms], [ext4], a vmlinux path).
func KernelDSO(dso string) bool {
	switch {
	case dso == "":
		return false
	case strings.HasPrefix(dso, "[kernel") || strings.HasPrefix(dso, "[guest.kernel"):
		return true
	case strings.HasSuffix(dso, "/vmlinux") || dso == "vmlinux" || strings.HasSuffix(dso, ".ko") || strings.HasSuffix(dso, ".ko.xz") || strings.HasSuffix(dso, ".ko.zst"):
		return true
	case strings.HasPrefix(dso, "[") && strings.HasSuffix(dso, "]"):
		return !userPseudo[dso] && !strings.HasPrefix(dso, "[JIT")
	}
	return false
}
