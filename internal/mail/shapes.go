package mail

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// The shapes of comparison tables the list carries besides the seeds'
// and 0-day's, each read by the layout it has, never by the mail it came
// in:
//
// mmtests' compare-kernels output: a column per kernel (its name split
// over two header lines at its first "-"), a row per statistic and case,
// each cell the value and its change from the first kernel in percent,
// positive better whatever the unit ("( 9.35%)"; "*  9.35%*" when
// mmtests' own test marks it significant):
//
//	                       6.9.0-rc1              6.9.0-rc1
//	                         vanilla           eevdf-fix-v1
//	Amean  1        0.4633 (   0.00%)      0.4200 *   9.35%*
//
// AMD's tables, the change in "pct" positive better likewise, in the
// older "(1.20 pct)" cells or the newer "0.97 [  3.00]( 1.87)" (value,
// [pct imp], (CV)) under a block that may say "Interpretation: Lower is
// better":
//
//	Clients:       tip                     sched-fix
//	    1      452.49 (0.00 pct)       457.94 (1.20 pct)
//
// Normalized tables, the baseline 1.00 with its std% and the other side's
// change in percent with its own:
//
//	case            load            baseline(std%)  compare%( std%)
//	process-pipe    1-groups         1.00 (  1.18)   -0.50 (  1.36)
//
// Markdown tables with a Relative column (the other side over the first),
// and cells with their spread glued on: "149313(+/-0.28%)", "42382±19.8%",
// and "base: 93671±0.4%  patched: 95102±0.6%" lines.
//
// Every column a variant: a set of its own labelled variant=NAME, one
// figure per benchmark and metric (with its spread where the cell gives
// one, n unknown), compared as figures. A change the table states is the
// mail's claim, recomputed from the values. Which way is better is what
// the table says or what its changes give (a change that is positive for
// the better gives it), else it is said to be unknown and the metric
// judged neither way. A row in the table's region that does not read is a
// problem naming its line and the layout expected.

// A shapeRead is what one shape reader made of a span.
type shapeRead struct {
	format   string
	order    []string
	sets     map[string]*result.Set
	claims   []*Claim
	problems []Problem
	warnings []string
}

func newShapeRead(format string) *shapeRead {
	return &shapeRead{format: format, sets: map[string]*result.Set{}}
}

// bench returns variant v's benchmark of workload with params.
func (r *shapeRead) bench(v, workload string, params map[string]string) *result.Benchmark {
	st := r.sets[v]
	if st == nil {
		st = &result.Set{Schema: result.Schema, Tool: "mail " + r.format, Labels: map[string]string{result.VariantParam: v}, Complete: true, Created: time.Unix(0, 0).UTC()}
		r.sets[v] = st
		r.order = append(r.order, v)
	}
	key := (&result.Benchmark{Workload: workload, Params: params}).Key()
	for _, b := range st.Benchmarks {
		if b.Key() == key {
			return b
		}
	}
	b := &result.Benchmark{Workload: workload, Params: params, Summaries: map[string]result.Summary{}}
	st.Benchmarks = append(st.Benchmarks, b)
	return b
}

// add puts one cell's figure into variant v: a run of one value, or a
// summary when the cell gives a spread (rel, in percent of the value; n
// is never given).
func (r *shapeRead) add(v, workload string, params map[string]string, m result.Metric, value, rel float64, line int) {
	b := r.bench(v, workload, params)
	found := false
	for _, x := range b.Metrics {
		found = found || x.Name == m.Name
	}
	if !found {
		b.Metrics = append(b.Metrics, m)
	}
	if !math.IsNaN(rel) {
		b.Summaries[m.Name] = result.Summary{Mean: value, StdErr: math.Abs(value) * rel / 100}
		return
	}
	for _, run := range b.Runs {
		if _, ok := run.Values[m.Name]; !ok {
			run.Values[m.Name] = value
			return
		}
	}
	addRun(b, map[string]float64{m.Name: value}, line)
}

// output turns what was read into an Output of the span.
func (r *shapeRead) output(span []Line) *Output {
	// Each column is a variant of its own: the title above the span named
	// the workload, not a variant.
	o := &Output{Line: span[0].N, End: span[len(span)-1].N, Format: r.format}
	for i, v := range r.order {
		st := r.sets[v]
		for _, b := range st.Benchmarks {
			if len(b.Summaries) == 0 {
				b.Summaries = nil
			}
		}
		if i == 0 {
			st.Warnings = append(st.Warnings, r.warnings...)
		}
		o.Sets = append(o.Sets, st)
	}
	return o
}

// readShape tries the shape readers on a span; title is the span's own
// title line when the mail gave one above it.
func (s *Section) readShape(span []Line, variant string) bool {
	for _, read := range []func([]Line, string) *shapeRead{readMMTests, readPctTable, readNormalized, readRelative, readGlued} {
		r := read(span, variant)
		if r == nil || len(r.order) == 0 && len(r.problems) == 0 {
			continue
		}
		if len(r.order) == 0 {
			// The shape is known by its header, but no row of it read.
			s.Unread = append(s.Unread, r.problems...)
			return true
		}
		s.Outputs = append(s.Outputs, r.output(span))
		s.Claims = append(s.Claims, r.claims...)
		s.Unread = append(s.Unread, r.problems...)
		return true
	}
	return false
}

// titleWorkload is the workload a title above a table names: a benchmark
// it names ("And hackbench with 12 groups:"), the title itself when it is
// one word, else def.
func titleWorkload(title, def string) string {
	if m := namedProseRE.FindString(title); m != "" {
		return strings.ToLower(m)
	}
	if t := strings.TrimSpace(title); t != "" && !strings.ContainsAny(t, " \t") {
		return t
	}
	return def
}

const shapeNum = `[-+]?\d[\d,]*(?:\.\d+)?`

// cellNum reads a number of a cell and the size of half its last digit.
func cellNum(s string) (v, half float64, dec int, ok bool) {
	s = strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(s), "+"), ",", "")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, 0, false
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		dec = len(s) - i - 1
	}
	return v, 0.5 * math.Pow10(-dec), dec, true
}

// A pctCell is a value and the change the table gives for it, positive
// for the better.
type pctCell struct {
	v, half, pct, pctHalf float64
	pctDec                int
	sig                   bool
}

// pctDirections tells which ways of counting "positive is better" give
// the table's changes from the first cell: higher (the change of the
// value) and lower (the change with its sign turned). The tolerance is
// what the printed digits allow.
func pctDirections(cells []pctCell) (higher, lower bool) {
	higher, lower = true, true
	base := cells[0]
	if base.v == 0 {
		return false, false
	}
	for _, c := range cells[1:] {
		ch := 100 * (c.v/base.v - 1)
		tol := 100*(c.half+math.Abs(c.v/base.v)*base.half)/math.Abs(base.v) + c.pctHalf + 1e-9
		higher = higher && math.Abs(ch-c.pct) <= tol
		lower = lower && math.Abs(-ch-c.pct) <= tol
	}
	return higher, lower
}

// pctClaims states the table's changes as the mail's claims, each
// recomputed from the values the way the row's direction counts it.
func (r *shapeRead) pctClaims(line int, what string, names []string, cells []pctCell, better result.Better, why string) {
	for i, c := range cells[1:] {
		text := fmt.Sprintf("%s: %s %+.*f%% vs %s (positive is better)", what, names[i+1], c.pctDec, c.pct, names[0])
		if c.sig {
			text += ", marked significant"
		}
		cl := &Claim{Line: line, Kind: ClaimChange, Text: text, Stated: c.pct, Better: true, Decimals: c.pctDec, From: cells[0].v, To: c.v}
		pair := names[0] + " -> " + names[i+1]
		ch := math.NaN()
		if cells[0].v != 0 {
			ch = 100 * (c.v/cells[0].v - 1)
		}
		if better == result.Neither {
			cl.Checks = append(cl.Checks, Check{What: pair, Change: math.NaN(), Implied: math.NaN(), Test: why})
		} else {
			k := cl.check(pair, ch, better == result.Higher, "figures, no test")
			tol := 100*(c.half+math.Abs(c.v/cells[0].v)*cells[0].half)/math.Abs(cells[0].v) + c.pctHalf + 1e-9
			k.Agrees = math.Abs(k.Implied-c.pct) <= tol
			if why != "" {
				k.Test += "; " + why
			}
			cl.Checks = append(cl.Checks, k)
		}
		cl.Verdict = cl.verdict()
		r.claims = append(r.claims, cl)
	}
}

// tableBetter is the direction the rows that tell one agree on, "" when
// none tells or they disagree.
func tableBetter(rows [][]pctCell) result.Better {
	var got result.Better
	for _, cells := range rows {
		higher, lower := pctDirections(cells)
		var b result.Better
		switch {
		case higher && !lower:
			b = result.Higher
		case lower && !higher:
			b = result.Lower
		default:
			continue
		}
		if got != "" && got != b {
			return ""
		}
		got = b
	}
	return got
}

// rowBetter is the direction of a row: what the table says, else what
// its changes give; why says how it was told, or why it could not be.
func rowBetter(said, table result.Better, cells []pctCell) (result.Better, string) {
	higher, lower := pctDirections(cells)
	switch {
	case said != "":
		return said, "the table says " + string(said) + " is better"
	case higher && !lower:
		return result.Higher, "higher is better: the table's changes count so"
	case lower && !higher:
		return result.Lower, "lower is better: the table's changes count so"
	case table != "":
		return table, string(table) + " is better, as the table's other rows count"
	case higher && lower:
		return result.Neither, "which way is better is not told: the changes are nil either way"
	}
	return result.Neither, "which way is better is not told: neither way of counting gives the table's changes"
}

var (
	mmRowRE    = regexp.MustCompile(`^\s*([A-Z][A-Za-z]*(?:-\d+)?)\s+(\S+)((?:\s+` + shapeNum + `\s*(?:\(\s*` + shapeNum + `%\)|\*\s*` + shapeNum + `%\*))+)\s*$`)
	mmCellRE   = regexp.MustCompile(`(` + shapeNum + `)\s*(?:\(\s*(` + shapeNum + `)%\)|\*\s*(` + shapeNum + `)%\*)`)
	mmLooseRE  = regexp.MustCompile(`^\s*[A-Z][A-Za-z]*(?:-\d+)?\s+\S+\s+` + shapeNum)
	wordLineRE = regexp.MustCompile(`^\s*[A-Za-z][\w.+-]*\s*$`)
)

// headerCells splits a header line of column names; names hold no space.
func headerCells(l string) []string { return strings.Fields(l) }

// readMMTests reads an mmtests compare table.
func readMMTests(span []Line, title string) *shapeRead {
	first := -1
	for i, l := range span {
		if mmRowRE.MatchString(l.Text) {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	n := len(mmCellRE.FindAllString(mmRowRE.FindStringSubmatch(span[first].Text)[3], -1))
	// One or two header lines of n names each, just above the rows.
	var heads [][]string
	k := first - 1
	for ; k >= 0 && len(heads) < 2; k-- {
		h := headerCells(span[k].Text)
		if len(h) != n || strings.ContainsAny(span[k].Text, "%()") {
			break
		}
		heads = append([][]string{h}, heads...)
	}
	if n < 2 {
		return nil
	}
	if len(heads) == 0 {
		// Rows of mmtests' shape under a header that does not split into
		// their kernels' names: mmtests runs a name longer than its column
		// into the next one ("sched-pidclear-v1r5sched-forcescan-v1r5").
		// Which column is which kernel is not told: named, not read.
		at := span[first]
		if first > 0 && strings.TrimSpace(span[first-1].Text) != "" {
			at = span[first-1]
		}
		r := newShapeRead("mmtests compare table")
		r.problems = append(r.problems, Problem{Line: at.N, Text: strings.TrimSpace(at.Text), Msg: fmt.Sprintf("an mmtests compare table whose header does not split into its %d kernels' names (a name longer than its column runs into the next): expected one or two lines of %d names above its rows", n, n)})
		return r
	}
	names := make([]string, n)
	for c := range names {
		var parts []string
		for _, h := range heads {
			parts = append(parts, h[c])
		}
		names[c] = strings.Join(parts, "-")
	}
	if dupNames(names) {
		for c := range names {
			names[c] = fmt.Sprintf("%d-%s", c+1, names[c])
		}
	}
	workload := titleWorkload(title, "mmtests")
	if k >= 0 && wordLineRE.MatchString(span[k].Text) {
		workload = strings.TrimSpace(span[k].Text)
	}
	r := newShapeRead("mmtests compare table")
	type row struct {
		l     Line
		stat  string
		param string
		cells []pctCell
	}
	var rows []row
	byStat := map[string][][]pctCell{}
	for _, l := range span[first:] {
		m := mmRowRE.FindStringSubmatch(l.Text)
		if m == nil {
			if strings.TrimSpace(l.Text) != "" && (mmLooseRE.MatchString(l.Text) || hasDigit(l.Text)) {
				r.problems = append(r.problems, Problem{Line: l.N, Text: strings.TrimSpace(l.Text), Msg: fmt.Sprintf("an mmtests row of %d kernels: expected 'STAT CASE VALUE ( PCT%%)' per kernel", n)})
			}
			continue
		}
		cs := mmCellRE.FindAllStringSubmatch(m[3], -1)
		if len(cs) != n {
			r.problems = append(r.problems, Problem{Line: l.N, Text: strings.TrimSpace(l.Text), Msg: fmt.Sprintf("%d cells where the header names %d kernels", len(cs), n)})
			continue
		}
		cells, ok := pctCells(cs)
		if !ok {
			r.problems = append(r.problems, Problem{Line: l.N, Text: strings.TrimSpace(l.Text), Msg: "a cell that is not a finite number"})
			continue
		}
		stat := strings.ToLower(m[1])
		rows = append(rows, row{l, stat, m[2], cells})
		byStat[stat] = append(byStat[stat], cells)
	}
	for _, rw := range rows {
		better, why := rowBetter("", tableBetter(byStat[rw.stat]), rw.cells)
		spread := rw.stat == "stddev" || rw.stat == "coeffvar"
		if spread {
			// A spread's change is not the workload's: kept, not claimed.
			better, why = result.Neither, ""
		}
		met := result.Metric{Name: rw.stat, Better: better}
		params := map[string]string{"case": rw.param}
		for c, cell := range rw.cells {
			r.add(names[c], workload, params, met, cell.v, math.NaN(), rw.l.N)
		}
		if !spread {
			r.pctClaims(rw.l.N, workload+" "+rw.stat+" "+rw.param, names, rw.cells, better, why)
		}
		if better == result.Neither && why != "" {
			r.warnings = append(r.warnings, fmt.Sprintf("line %d: %s %s: %s", rw.l.N, rw.stat, rw.param, why))
		}
	}
	return r
}

func dupNames(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return true
		}
		seen[n] = true
	}
	return false
}

// pctCells reads cells matched as (value, pct, or starred pct).
func pctCells(cs [][]string) ([]pctCell, bool) {
	var out []pctCell
	for _, c := range cs {
		v, half, _, ok := cellNum(c[1])
		p := c[2]
		sig := false
		if p == "" {
			p, sig = c[3], true
		}
		pv, ph, pd, ok2 := cellNum(p)
		if !ok || !ok2 {
			return nil, false
		}
		out = append(out, pctCell{v: v, half: half, pct: pv, pctHalf: ph, pctDec: pd, sig: sig})
	}
	return out, true
}

var (
	amdOldCellRE = regexp.MustCompile(`(` + shapeNum + `)\s*\(\s*(` + shapeNum + `)\s*pct\s*\)`)
	amdNewCellRE = regexp.MustCompile(`(` + shapeNum + `)\s*\[\s*(` + shapeNum + `)\s*\]\s*\(\s*(` + shapeNum + `)\s*\)`)
	amdHeaderRE  = regexp.MustCompile(`^\s*([A-Za-z][\w -]*):\s+(\S.*)$`)
	columnGapRE  = regexp.MustCompile(`\s{2,}|\t`)
	amdInterpRE  = regexp.MustCompile(`(?i)^\s*Interpretation\s*:\s*(lower|higher) is better`)
	amdTestRE    = regexp.MustCompile(`(?i)^\s*Test\s*:\s*(\S+)\s*$`)
	amdUnitsRE   = regexp.MustCompile(`(?i)^\s*Units\s*:\s*(.+?)\s*$`)
	amdStatRE    = regexp.MustCompile(`(?i)^\s*Statistic\s*:\s*(\S+)\s*$`)
)

// readPctTable reads AMD's "pct" tables, old and new layouts.
func readPctTable(span []Line, title string) *shapeRead {
	hi := -1
	var cellRE *regexp.Regexp
	for i, l := range span {
		if i+1 >= len(span) {
			break
		}
		if !amdHeaderRE.MatchString(l.Text) || amdOldCellRE.MatchString(l.Text) || amdNewCellRE.MatchString(l.Text) {
			// A row ("Copy:  97699.28 (0.00 pct) ...") is no header.
			continue
		}
		next := span[i+1].Text
		switch {
		case amdNewCellRE.MatchString(next) && strings.Contains(l.Text, "[pct imp]"):
			cellRE = amdNewCellRE
		case amdOldCellRE.MatchString(next):
			cellRE = amdOldCellRE
		default:
			continue
		}
		hi = i
		break
	}
	if hi < 0 {
		// Rows of pct cells under no header: which column is which
		// variant is not told, so none is read; the first row is named.
		var rows []Line
		for _, l := range span {
			if len(amdOldCellRE.FindAllString(l.Text, -1)) >= 2 || len(amdNewCellRE.FindAllString(l.Text, -1)) >= 2 {
				rows = append(rows, l)
			}
		}
		if len(rows) < 2 {
			return nil
		}
		r := newShapeRead("pct table")
		r.problems = append(r.problems, Problem{Line: rows[0].N, Text: strings.TrimSpace(rows[0].Text), Msg: "rows of a pct table under no header naming its columns: expected a line 'NAME: VARIANT VARIANT ...' just above them"})
		return r
	}
	hm := amdHeaderRE.FindStringSubmatch(span[hi].Text)
	head := strings.ReplaceAll(strings.ReplaceAll(hm[2], "[pct imp]", "  "), "(CV)", "  ")
	names := strings.Fields(head)
	if n := len(cellRE.FindAllString(span[hi+1].Text, -1)); len(names) != n {
		// Names with a space in them ("Base (v6.4-rc1)   Base + fix"):
		// the columns are apart by two spaces or a tab.
		var wide []string
		for _, f := range columnGapRE.Split(strings.TrimSpace(head), -1) {
			if f != "" {
				wide = append(wide, f)
			}
		}
		if len(wide) == n {
			names = wide
		}
	}
	if len(names) < 2 {
		return nil
	}
	workload, stat, said := titleWorkload(title, "table"), "value", result.Better("")
	unit := ""
	for _, l := range span[:hi] {
		if m := amdTestRE.FindStringSubmatch(l.Text); m != nil {
			workload = m[1]
		}
		if m := amdStatRE.FindStringSubmatch(l.Text); m != nil {
			stat = strings.ToLower(m[1])
		}
		if m := amdUnitsRE.FindStringSubmatch(l.Text); m != nil {
			unit = m[1]
		}
		if m := amdInterpRE.FindStringSubmatch(l.Text); m != nil {
			said = result.Lower
			if strings.EqualFold(m[1], "higher") {
				said = result.Higher
			}
		}
	}
	caseKey := strings.ToLower(strings.TrimSpace(hm[1]))
	r := newShapeRead("pct table")
	if unit != "" {
		r.warnings = append(r.warnings, "units: "+unit)
	}
	type row struct {
		l       Line
		label   string
		cells   []pctCell
		spreads []float64
	}
	var rows []row
	var all [][]pctCell
	for _, l := range span[hi+1:] {
		t := strings.TrimSpace(l.Text)
		if t == "" {
			continue
		}
		cs := cellRE.FindAllStringSubmatch(t, -1)
		loc := cellRE.FindStringIndex(t)
		if len(cs) != len(names) || loc == nil {
			if hasDigit(t) {
				r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: fmt.Sprintf("a row of %d cells: expected 'CASE VALUE (PCT pct)' or 'CASE VALUE [PCT](CV)' per column", len(names))})
			}
			continue
		}
		label := strings.TrimSuffix(strings.TrimSpace(t[:loc[0]]), ":")
		var cells []pctCell
		var spreads []float64
		ok := true
		for _, c := range cs {
			v, half, _, ok1 := cellNum(c[1])
			p, ph, pd, ok2 := cellNum(c[2])
			sp := math.NaN()
			if len(c) > 3 && c[3] != "" {
				var ok3 bool
				sp, _, _, ok3 = cellNum(c[3])
				ok2 = ok2 && ok3
			}
			ok = ok && ok1 && ok2
			cells = append(cells, pctCell{v: v, half: half, pct: p, pctHalf: ph, pctDec: pd})
			spreads = append(spreads, sp)
		}
		if !ok {
			r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: "a cell that is not a finite number"})
			continue
		}
		rows = append(rows, row{l, label, cells, spreads})
		all = append(all, cells)
	}
	table := tableBetter(all)
	for _, rw := range rows {
		better, why := rowBetter(said, table, rw.cells)
		met := result.Metric{Name: stat, Better: better}
		params := map[string]string{caseKey: rw.label}
		for c, cell := range rw.cells {
			r.add(names[c], workload, params, met, cell.v, rw.spreads[c], rw.l.N)
		}
		r.pctClaims(rw.l.N, workload+" "+rw.label, names, rw.cells, better, why)
		if better == result.Neither {
			r.warnings = append(r.warnings, fmt.Sprintf("line %d: %s: %s", rw.l.N, rw.label, why))
		}
	}
	return r
}

var (
	normHeaderRE = regexp.MustCompile(`baseline\s*\(\s*std%\s*\)\s+compare%\s*\(\s*std%\s*\)`)
	// The load may hold a space: "56 threads", "1 mthread group".
	normRowRE = regexp.MustCompile(`^\s*(\S+)\s+(\S.*?)\s+(` + shapeNum + `)\s*\(\s*(` + shapeNum + `)\s*\)\s+(` + shapeNum + `)\s*\(\s*(` + shapeNum + `)\s*\)\s*$`)
	betterRE  = regexp.MustCompile(`(?i)\b(higher|lower) is better`)
	ruleRE    = regexp.MustCompile(`^\s*[=-]{3,}\s*$`)
)

// readNormalized reads a "baseline(std%) compare%( std%)" table.
func readNormalized(span []Line, title string) *shapeRead {
	hi := -1
	for i, l := range span {
		if normHeaderRE.MatchString(l.Text) {
			hi = i
			break
		}
	}
	if hi < 0 {
		return nil
	}
	// The title over the rule above the header names the workload, and
	// may say which way is better: "netperf (throughput, higher is
	// better)".
	workload, said := titleWorkload(title, "table"), result.Better("")
	for i := hi - 1; i > 0; i-- {
		if ruleRE.MatchString(span[i].Text) {
			t := strings.TrimSpace(span[i-1].Text)
			if f := strings.Fields(strings.SplitN(t, "(", 2)[0]); len(f) > 0 {
				workload = f[0]
			}
			if m := betterRE.FindStringSubmatch(t); m != nil {
				said = result.Better(strings.ToLower(m[1]))
			}
			break
		}
	}
	h := strings.Fields(normHeaderRE.ReplaceAllString(span[hi].Text, ""))
	k1, k2 := "case", "load"
	if len(h) == 2 {
		k1, k2 = strings.ToLower(h[0]), strings.ToLower(h[1])
	}
	r := newShapeRead("normalized table")
	met := result.Metric{Name: "normalized", Better: result.Neither}
	if said != "" {
		met.Better = said
		r.warnings = append(r.warnings, "normalized figures: the baseline is 1.00, the other side 1 + compare%/100; "+string(said)+" is better, as the table's title says")
	} else {
		r.warnings = append(r.warnings, "normalized figures: the baseline is 1.00, the other side 1 + compare%/100; the table does not say which way is better, so no change is judged better or worse")
	}
	for _, l := range span[hi+1:] {
		t := strings.TrimSpace(l.Text)
		if t == "" || ruleRE.MatchString(t) {
			continue
		}
		m := normRowRE.FindStringSubmatch(t)
		if m == nil {
			if hasDigit(t) {
				r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: "a normalized row: expected 'CASE LOAD BASE ( STD%) COMPARE% ( STD%)'"})
			}
			continue
		}
		b, _, _, ok1 := cellNum(m[3])
		bs, _, _, ok2 := cellNum(m[4])
		c, _, _, ok3 := cellNum(m[5])
		cs, _, _, ok4 := cellNum(m[6])
		if !ok1 || !ok2 || !ok3 || !ok4 {
			r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: "a cell that is not a finite number"})
			continue
		}
		params := map[string]string{k1: m[1], k2: m[2]}
		r.add("baseline", workload, params, met, b, bs, l.N)
		v := b * (1 + c/100)
		r.add("compare", workload, params, met, v, cs, l.N)
	}
	return r
}

var relUnitRE = regexp.MustCompile(`\(([^()]+)\)\s*$`)

// unitBetter is the direction a unit gives, "" when it gives none.
func unitBetter(label string) (string, result.Better) {
	m := relUnitRE.FindStringSubmatch(label)
	if m == nil {
		return "", ""
	}
	u := strings.TrimSpace(m[1])
	switch strings.ToLower(u) {
	case "s", "sec", "secs", "ms", "msec", "us", "usec", "µs", "ns", "nsec", "cycles", "seconds":
		return u, result.Lower
	}
	if strings.Contains(u, "/s") || strings.Contains(strings.ToLower(u), "per sec") {
		return u, result.Higher
	}
	return u, ""
}

// readRelative reads a Markdown table with a Relative column: the values
// of each variant, and the ratio the mail computed.
func readRelative(span []Line, title string) *shapeRead {
	var rows [][]string
	var lines []Line
	for _, l := range span {
		t := strings.TrimSpace(l.Text)
		if !strings.HasPrefix(t, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(t, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue
		}
		rows = append(rows, cells)
		lines = append(lines, l)
	}
	if len(rows) < 2 {
		return nil
	}
	head := rows[0]
	rel := -1
	for i, h := range head {
		if strings.EqualFold(strings.TrimSpace(h), "relative") {
			rel = i
		}
	}
	if rel < 0 || len(head) < 4 {
		return nil
	}
	var vcols []int
	for i := 1; i < len(head); i++ {
		if i != rel {
			vcols = append(vcols, i)
		}
	}
	if len(vcols) != 2 {
		return nil
	}
	workload := titleWorkload(title, "table")
	names := []string{head[vcols[0]], head[vcols[1]]}
	r := newShapeRead("table with a Relative column")
	for ri, row := range rows[1:] {
		l := lines[ri+1]
		if len(row) != len(head) {
			r.problems = append(r.problems, Problem{Line: l.N, Text: strings.TrimSpace(l.Text), Msg: fmt.Sprintf("%d cells where the header has %d", len(row), len(head))})
			continue
		}
		a, ha, _, ok1 := cellNum(row[vcols[0]])
		b, hb, _, ok2 := cellNum(row[vcols[1]])
		q, hq, dq, ok3 := cellNum(row[rel])
		if !ok1 || !ok2 || !ok3 || a == 0 {
			r.problems = append(r.problems, Problem{Line: l.N, Text: strings.TrimSpace(l.Text), Msg: "expected numbers in the value and Relative columns"})
			continue
		}
		unit, better := unitBetter(row[0])
		why := ""
		if better == "" {
			better = result.Neither
			why = fmt.Sprintf("%s: which way is better is not told (no unit that says)", row[0])
			r.warnings = append(r.warnings, fmt.Sprintf("line %d: %s", l.N, why))
		}
		bench := strings.TrimSpace(relUnitRE.ReplaceAllString(row[0], ""))
		met := result.Metric{Name: "value", Unit: unit, Better: better}
		params := map[string]string{"benchmark": bench}
		r.add(names[0], workload, params, met, a, math.NaN(), l.N)
		r.add(names[1], workload, params, met, b, math.NaN(), l.N)
		// The Relative cell: the second over the first, as a change.
		stated := 100 * (q - 1)
		cl := &Claim{Line: l.N, Kind: ClaimChange, Text: fmt.Sprintf("%s: Relative %s (%s / %s)", bench, row[rel], names[1], names[0]), Stated: stated, Decimals: max(dq-2, 0), From: a, To: b}
		ch := 100 * (b/a - 1)
		tol := 100*(hb+math.Abs(b/a)*ha)/math.Abs(a) + 100*hq + 1e-9
		k := Check{What: names[0] + " -> " + names[1], Change: ch, Implied: ch, Agrees: math.Abs(ch-stated) <= tol, Test: "figures, no test"}
		if !k.Agrees && b != 0 && math.Abs(100*(a/b-1)-stated) <= tol {
			k.Test += fmt.Sprintf("; the Relative column is %s / %s instead", names[0], names[1])
		}
		if why != "" {
			k.Test += "; " + why
		}
		cl.Checks = append(cl.Checks, k)
		cl.Verdict = cl.verdict()
		r.claims = append(r.claims, cl)
	}
	return r
}

var (
	gluedCell   = `(` + shapeNum + `)\s*(?:\(\s*\+/-\s*(` + shapeNum + `)\s*%\s*\)|±\s*(` + shapeNum + `)\s*%)`
	gluedCellRE = regexp.MustCompile(gluedCell)
	gluedKVRE   = regexp.MustCompile(`([A-Za-z][\w.+-]*(?: [\w.+-]+)?)\s*:\s*` + gluedCell)
)

// readGlued reads a table whose cells carry their spread, or a line of
// "name: value±spread%" pairs.
func readGlued(span []Line, title string) *shapeRead {
	r := newShapeRead("table of figures with their spread")
	workload := titleWorkload(title, "table")
	var names []string
	warned := false
	note := func() {
		if !warned {
			warned = true
			r.warnings = append(r.warnings, "a spread glued to its figure does not say whether it is a standard deviation or an error, nor over how many runs: kept as the mail's, compared as figures; which way is better is not told")
		}
	}
	met := result.Metric{Name: "value", Better: result.Neither}
	for i, l := range span {
		t := strings.TrimSpace(l.Text)
		if kvs := gluedKVRE.FindAllStringSubmatch(t, -1); len(kvs) >= 2 && len(gluedCellRE.FindAllString(t, -1)) == len(kvs) {
			note()
			for _, kv := range kvs {
				v, sp, ok := gluedValue(kv[2:])
				if !ok {
					r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: "a cell that is not a finite number"})
					break
				}
				r.add(strings.TrimSpace(kv[1]), workload, map[string]string{}, met, v, sp, l.N)
			}
			continue
		}
		cs := gluedCellRE.FindAllStringSubmatch(t, -1)
		if len(cs) < 2 {
			if len(cs) == 0 && i+1 < len(span) && len(gluedCellRE.FindAllString(span[i+1].Text, -1)) >= 2 && !hasDigit(strings.Join(strings.Fields(t), "")) {
				names = strings.Fields(t)
			} else if len(cs) == 1 && names != nil {
				r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: fmt.Sprintf("a row of %d figures with their spread (VALUE(+/-P%%) or VALUE±P%%)", len(names))})
			}
			continue
		}
		loc := gluedCellRE.FindStringIndex(t)
		label := strings.TrimSpace(t[:loc[0]])
		if names == nil || len(cs) != len(names) || label == "" {
			r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: "figures with their spread under no header of as many names: expected a header line naming each column"})
			continue
		}
		note()
		for c, cell := range cs {
			v, sp, ok := gluedValue(cell[1:])
			if !ok {
				r.problems = append(r.problems, Problem{Line: l.N, Text: t, Msg: "a cell that is not a finite number"})
				break
			}
			r.add(names[c], workload, map[string]string{"benchmark": label}, met, v, sp, l.N)
		}
	}
	if len(r.order) == 0 {
		return nil
	}
	return r
}

// gluedValue reads (value, spread in parentheses, spread after ±).
func gluedValue(m []string) (v, spread float64, ok bool) {
	v, _, _, ok = cellNum(m[0])
	p := m[1]
	if p == "" {
		p = m[2]
	}
	sp, _, _, ok2 := cellNum(p)
	return v, sp, ok && ok2
}
