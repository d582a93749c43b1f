package result

import (
	"errors"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Tables users paste into mails (seed mail 002):
//
//	Baseline (without fix):
//	| Run | Mean      | Min      | Max       |
//	|-----|-----------|----------|-----------|
//	| 1   | 10.088 ms | 9.989 ms | 18.848 ms |
//
// A table is a header row, a separator line (Markdown's |---|, an ASCII
// +---+ border, or a rule of dashes) and rows up to the first line that is
// not a row. Mail quoting ("> ") is ignored. Each column of numbers is a
// metric, named by its header, in the unit its header gives ("Time (s)")
// or its cells carry ("10.088 ms"); a Run column numbers the runs; any
// other text column makes each row a benchmark of its own, with the cell
// as a parameter. Rows of a table with mean, min and max columns in a unit
// of time also get a latency summary, as kdelta's latency workloads have.
// A derived column ("Improvement (%)", "vs enforcing") is no metric: its
// cells are the mail's claims (import_claim.go). Tables whose rows or
// columns are the variants compared, and the other shapes users paste, are
// in import_table_shapes.go.
//
// The workload is "table", or the text of a Markdown heading ("## rcu")
// just above the table. A prose line above it ("Baseline (without fix):")
// is the set's "title" label instead: it names a column in a comparison,
// and the two sides of a comparison must share the workload.

var (
	tableQuoteRE = regexp.MustCompile(`^\s*(?:>\s?)+`)
	tableSepRE   = regexp.MustCompile(`^[\s|:+\-—–=_]*$`)
	tableCellRE  = regexp.MustCompile(`^(` + numPat + `)\s*([A-Za-zµ%/][\w/%µ]*)?(?:\s+.*)?$`)
	tableUnitRE  = regexp.MustCompile(`^(.*?)\s*[(\[]\s*([^()\[\]\s]+)\s*[)\]]\s*$`)
)

// tableRunHeaders are the headers of a column that numbers runs.
var tableRunHeaders = map[string]bool{"run": true, "#": true, "iteration": true, "iter": true, "n": true,
	"no": true, "no.": true, "round": true, "trial": true, "rep": true}

// tableLabelHeaders are the headers of columns that name a configuration,
// even when their cells look like numbers (kernel 6.15).
var tableLabelHeaders = map[string]bool{"kernel": true, "version": true, "release": true, "config": true,
	"configuration": true, "mode": true, "build": true, "commit": true, "branch": true, "patch": true,
	"host": true, "machine": true, "arch": true, "name": true, "test": true, "benchmark": true,
	"workload": true, "setup": true, "case": true}

// timeUnits are the units of time a column may mix, as powers of ten of a
// second.
var timeUnits = map[string]int{
	"ns": -9, "nsec": -9, "nsecs": -9,
	"us": -6, "µs": -6, "usec": -6, "usecs": -6,
	"ms": -3, "msec": -3, "msecs": -3,
	"s": 0, "sec": 0, "secs": 0, "seconds": 0,
}

// scaleTime converts v between units of time. It shifts the decimal
// exponent of v's shortest decimal form, so 1 ms is 1000 us exactly, not
// 1000.0000000000001.
func scaleTime(v float64, from, to string) float64 {
	shift := timeUnits[from] - timeUnits[to]
	x, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', -1, 64)+"e"+strconv.Itoa(shift), 64)
	if err != nil {
		return v * math.Pow10(shift)
	}
	return x
}

// headerUnit splits a header into its name and the unit in parentheses at
// its end ("Time (s)", "Mean(us)"); text in parentheses that is no unit
// ("6.16 (PREEMPT_RCU)") stays in the name.
func headerUnit(h string) (name, unit string) {
	m := tableUnitRE.FindStringSubmatch(h)
	if m == nil || m[1] == "" || !unitLikeRE.MatchString(m[2]) {
		return h, ""
	}
	return m[1], m[2]
}

// unitLikeRE is what a unit looks like: a short word of letters, % and /,
// not a CONFIG_ name or a number.
var unitLikeRE = regexp.MustCompile(`^(?:%|[A-Za-zµ][A-Za-zµ%/]{0,11})$`)

// tableLine is a line with any mail quoting removed.
func tableLine(l string) string { return tableQuoteRE.ReplaceAllString(l, "") }

func isTableSep(l string) bool {
	t := strings.TrimSpace(l)
	if !tableSepRE.MatchString(t) {
		return false
	}
	n := 0
	for _, r := range t {
		if r == '-' || r == '—' || r == '–' || r == '=' || r == '_' {
			n++
		}
	}
	return n >= 3
}

// tableCells splits a row into its cells; ok is false for a line that is
// not a row.
func tableCells(l string) ([]string, bool) {
	t := strings.TrimSpace(l)
	if !strings.Contains(t, "|") || isTableSep(t) {
		return nil, false
	}
	t = strings.TrimPrefix(t, "|")
	t = strings.TrimSuffix(t, "|")
	cells := strings.Split(t, "|")
	if len(cells) < 2 {
		return nil, false
	}
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells, true
}

func detectTable(in *input) int {
	tables, err := findTables(in)
	var se *SyntaxError
	if errors.As(err, &se) {
		return se.Line
	}
	if len(tables) > 0 {
		return tables[0].line
	}
	return 0
}

// parseCell reads "10.088 ms", "51.662" or "31.61% faster".
func parseCell(c string) (v float64, unit string, ok bool) {
	m := tableCellRE.FindStringSubmatch(c)
	if m == nil {
		return 0, "", false
	}
	v, err := parseNum(m[1])
	if err != nil {
		return 0, "", false
	}
	return v, m[2], true
}

// missingCell tells whether a cell says there is no value.
func missingCell(c string) bool {
	switch strings.ToLower(c) {
	case "", "-", "—", "–", "n/a", "na", "?":
		return true
	}
	return false
}

// approxCell tells whether a cell gives a value only roughly ("~0%"),
// which is no measurement to compare.
func approxCell(c string) bool {
	return strings.HasPrefix(c, "~") || strings.HasPrefix(c, "≈") || strings.HasPrefix(c, "<")
}

// A table is one table of the file.
type table struct {
	line   int // of the header
	title  string
	md     bool // the title is a Markdown heading
	kind   tableKind
	header []string
	rows   [][]string
	lines  []int
}

// The shapes of tables; see import_table_shapes.go for all but the first.
type tableKind int

const (
	pipeTable       tableKind = iota // | A | B | with a separator line
	spaceTable                       // columns aligned with spaces or tabs
	listTable                        // 1 - default: 24.221s
	transposedTable                  // statistics as rows, variants as columns
)

// findTables finds every table of the input, in the order of their lines.
func findTables(in *input) ([]*table, error) {
	used := make([]bool, len(in.lines))
	tables, err := findPipeTables(in, used)
	if err != nil {
		return nil, err
	}
	for _, find := range []func(*input, []bool) ([]*table, error){findSpaceTables, findHeaderlessTables, findListTables, findTransposedTables} {
		more, err := find(in, used)
		if err != nil {
			return nil, err
		}
		tables = append(tables, more...)
	}
	sort.SliceStable(tables, func(i, j int) bool { return tables[i].line < tables[j].line })
	for _, t := range tables {
		t.title, t.md = tableTitle(in, t.line-1)
	}
	return tables, nil
}

// findPipeTables finds the tables with cells between pipes, marking their
// lines used.
func findPipeTables(in *input, used []bool) ([]*table, error) {
	var tables []*table
	n := len(in.lines)
	for i := 0; i+1 < n; i++ {
		header, ok := tableCells(tableLine(in.lines[i]))
		if !ok || !isTableSep(tableLine(in.lines[i+1])) {
			continue
		}
		t := &table{line: i + 1, header: header}
		k := i + 2
		for ; k < n; k++ {
			l := tableLine(in.lines[k])
			if isTableSep(l) && strings.TrimSpace(l) != "" {
				continue
			}
			cells, ok := tableCells(l)
			if !ok {
				break
			}
			if len(cells) != len(header) {
				return nil, in.errorf(k+1, "expected %d cells as in the header of line %d, found %d", len(header), t.line, len(cells))
			}
			t.rows = append(t.rows, cells)
			t.lines = append(t.lines, k+1)
		}
		if len(t.rows) == 0 {
			return nil, in.errorf(min(k+1, n), "expected rows after the table header of line %d", t.line)
		}
		for j := i; j < k; j++ {
			used[j] = true
		}
		tables = append(tables, t)
		i = k - 1
	}
	return tables, nil
}

func readTable(in *input, s *Set) error {
	tables, err := findTables(in)
	if err != nil {
		return err
	}
	if len(tables) == 0 {
		return in.errorf(in.firstLine(), "expected a table: a header row '| A | B |' and a separator line '|---|---|', columns aligned under a rule of dashes, a numbered list '1 - name: value', or rows of statistics 'median: 1 2'")
	}
	numberedVariants(tables)
	bs := newBenches(s)
	for ti, t := range tables {
		workload := "table"
		if t.md && slug(t.title) != "" {
			workload = slug(t.title)
		}
		base := map[string]string{}
		if len(tables) > 1 && workload == "table" {
			base["table"] = strconv.Itoa(ti + 1)
			if t.title != "" {
				base["table"] = t.title
			}
		}
		if len(tables) == 1 && !t.md && t.title != "" {
			s.Labels["title"] = t.title
		}
		var err error
		switch t.kind {
		case listTable:
			err = t.readList(in, s, bs, workload, base)
		case transposedTable:
			err = t.readTransposed(in, s, bs, workload, base)
		default:
			err = t.read(in, s, bs, workload, base)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tableTitle finds the line just above the table at index i (past an
// ASCII border and one blank line): a Markdown heading or a line of prose.
func tableTitle(in *input, i int) (string, bool) {
	j := i - 1
	for j >= 0 && isTableSep(tableLine(in.lines[j])) && strings.TrimSpace(tableLine(in.lines[j])) != "" {
		j--
	}
	if j >= 0 && strings.TrimSpace(tableLine(in.lines[j])) == "" {
		j--
	}
	if j < 0 {
		return "", false
	}
	l := strings.TrimSpace(tableLine(in.lines[j]))
	if _, row := tableCells(l); row || l == "" {
		return "", false
	}
	if strings.HasPrefix(l, "#") {
		return strings.TrimSpace(strings.TrimLeft(l, "#")), true
	}
	return strings.TrimSpace(strings.TrimSuffix(l, ":")), false
}

// A tableCol is what a column of the table holds.
type tableCol struct {
	name    string
	unit    string
	metric  bool
	run     bool
	param   bool
	missing bool
	// derived is a column of changes the mail computed (a claim).
	derived bool
}

func (t *table) read(in *input, s *Set, bs *benches, workload string, base map[string]string) error {
	cols := make([]tableCol, len(t.header))
	// used keeps column names distinct: two "Mean" columns are mean and
	// mean-2, not one metric read twice.
	used := map[string]bool{}
	nmetric := 0
	for c, h := range t.header {
		col := &cols[c]
		name, unit := headerUnit(h)
		col.name, col.unit = slug(name), unit
		if col.unit == "%" || strings.HasSuffix(col.name, "%") {
			// "Improvement (%)" and "Improvement %" name the same column.
			col.name = strings.Trim(strings.TrimSuffix(col.name, "%"), "-")
		}
		if col.name == "" {
			col.name = "col" + strconv.Itoa(c+1)
		}
		for k := 2; used[col.name]; k++ {
			if !used[col.name+"-"+strconv.Itoa(k)] {
				col.name += "-" + strconv.Itoa(k)
			}
		}
		used[col.name] = true
		if tableRunHeaders[strings.ToLower(h)] {
			col.run = true
			continue
		}
		if tableLabelHeaders[col.name] {
			col.param = true
			continue
		}
		if t.derivedColumn(c) {
			col.derived = true
			continue
		}
		first := ""
		for _, r := range t.rows {
			if !missingCell(r[c]) {
				first = r[c]
				break
			}
		}
		if first == "" {
			col.missing = true
			continue
		}
		if _, u, ok := parseCell(first); ok {
			col.metric = true
			if col.unit == "" {
				col.unit = u
			}
			nmetric++
		} else {
			col.param = true
		}
	}
	if nmetric == 0 {
		return in.errorf(t.line, "expected a column of numbers in the table (a number per cell, with or without a unit)")
	}
	if columnVariants(t.header, cols) {
		return t.readColumnVariants(in, s, bs, workload, base, cols)
	}
	nameCol := t.rowVariants(cols)
	in.variants = in.variants || nameCol >= 0
	runs := make([]*Run, len(t.rows))
	// warned holds the columns whose unknown direction was warned of,
	// once for all the benchmarks of their rows.
	warned := map[int]bool{}
	for ri, row := range t.rows {
		ln := t.lines[ri]
		params := map[string]string{}
		for k, v := range base {
			params[k] = v
		}
		for c, col := range cols {
			if col.param && nameCol < 0 {
				params[col.name] = row[c]
			}
		}
		if nameCol >= 0 {
			params[VariantParam] = t.rowLabel(ri, cols, nameCol)
		}
		b := bs.get(workload, params)
		r := addRun(b)
		runs[ri] = r
		for c, col := range cols {
			// A variant's other text cells describe it.
			if col.param && nameCol >= 0 && c != nameCol {
				if r.Info == nil {
					r.Info = map[string]string{}
				}
				r.Info[col.name] = row[c]
			}
		}
		for c, col := range cols {
			cell := row[c]
			if col.run && cell != "" {
				if r.Info == nil {
					r.Info = map[string]string{}
				}
				r.Info["run"] = cell
			}
			if !col.metric || missingCell(cell) {
				continue
			}
			if approxCell(cell) {
				s.Warnings = append(s.Warnings, in.warnf(ln, "table: %q in column %q is approximate; left out", cell, t.header[c]))
				continue
			}
			v, u, ok := parseCell(cell)
			if !ok {
				return in.errorf(ln, "expected a number in column %q, found %q", t.header[c], cell)
			}
			if u != "" && u != col.unit {
				_, ok1 := timeUnits[u]
				_, ok2 := timeUnits[col.unit]
				if !ok1 || !ok2 {
					return in.errorf(ln, "column %q mixes units %s and %s", t.header[c], col.unit, u)
				}
				v = scaleTime(v, u, col.unit)
			}
			if !hasMetric(b, col.name) {
				dir, known := tableBetter(t.header[c], col.unit)
				if !known && !warned[c] {
					warned[c] = true
					s.Warnings = append(s.Warnings, in.warnf(t.line, "table: column %q has no known direction: taken as lower is better", t.header[c]))
				}
				addMetric(b, Metric{Name: col.name, Unit: col.unit, Better: dir})
			}
			r.Values[col.name] = v
		}
		r.Latency = tableLatency(cols, r.Values)
	}
	t.rowClaims(in, s, cols, runs, nameCol)
	return nil
}

// tableBetter gives a column's direction from its header and unit.
func tableBetter(header, unit string) (Better, bool) {
	h := strings.ToLower(header)
	for _, w := range []string{"throughput", "bandwidth", "per sec", "ops/s", "/s", "rate", "speed", "improvement", "faster", "speedup"} {
		if strings.Contains(h, w) {
			return Higher, true
		}
	}
	if strings.HasSuffix(unit, "/s") || strings.HasSuffix(unit, "/sec") {
		return Higher, true
	}
	if _, ok := timeUnits[unit]; ok {
		return Lower, true
	}
	for _, w := range []string{"time", "latency", "mean", "median", "min", "max", "avg", "p50", "p90", "p99", "duration", "elapsed"} {
		if strings.Contains(h, w) {
			return Lower, true
		}
	}
	return Lower, false
}

// tableLatency summarises a row with mean, min and max columns in units
// of time, in the mean's unit; the count of operations is not in such
// tables (0).
func tableLatency(cols []tableCol, v map[string]float64) *Latency {
	unit := ""
	byName := map[string]string{}
	for _, c := range cols {
		if c.metric {
			byName[c.name] = c.unit
		}
	}
	get := func(names ...string) (float64, bool) {
		for _, n := range names {
			u, ok := byName[n]
			x, has := v[n]
			if !ok || !has {
				continue
			}
			if unit == "" {
				unit = u
			}
			if u != unit {
				_, ok1 := timeUnits[u]
				_, ok2 := timeUnits[unit]
				if !ok1 || !ok2 {
					return 0, false
				}
				x = scaleTime(x, u, unit)
			}
			return x, true
		}
		return 0, false
	}
	mean, ok1 := get("mean", "avg", "average")
	lo, ok2 := get("min", "minimum")
	hi, ok3 := get("max", "maximum")
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	if _, ok := timeUnits[unit]; !ok {
		return nil
	}
	l := &Latency{Unit: unit, Mean: mean, Min: lo, Max: hi}
	l.P50, _ = get("median", "p50")
	l.P90, _ = get("p90")
	l.P99, _ = get("p99")
	return l
}
