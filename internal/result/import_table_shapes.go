package result

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The shapes of pasted tables other than the Markdown run table, from the
// seed mails (testdata/import/README says which mail and line) and issue
// 17's example of the first:
//
// A table aligned with spaces or tabs, under a rule of dashes or with units
// in its header, read as a Markdown table is:
//
//	Run  Mean(us)  Min(us)  Max(us)
//
// A table whose rows are the variants compared, which the mail's changes
// in a derived column or after the values show; each row is a variant:
//
//	SELinux mode   kill bogo-ops/sec   vs enforcing
//	------------   -----------------   ------------
//	Permissive     70,248              +1.6%
//
// and the same under no header, a name and a value a row:
//
//	7.2 x86_64          36,392 (-2.8%)
//
// A table whose columns are the variants compared, which two or more
// columns of one unit and a derived column (or the words with, without,
// before, after, or a version) show; each column is a variant, each row a
// benchmark:
//
//	SMT Mode | With Patch (s) | Without Patch (s) | Improvement (%)
//	————————————————————————————————————
//	SMT ON. | 51.662 | 75.540 | 31.61% faster
//
// A numbered list of variants, each one value, with the mail's claim:
//
//	1 - default: 24.221s
//	2 - this patch: 20.754s (14% faster)
//
// A transposed table: a header of variants, rows of statistics, the unit
// in the line above; numbered variants take the names of a numbered list
// of the same input:
//
//	Per-synchronize_rcu() latency (in usec):
//	1 2 3 4
//	median: 37249.5 31540.5 15765 22480
//
// Every variant is a benchmark with the parameter VariantParam (see
// ImportSets); a variant has one value per benchmark and metric, which
// compare compares as figures.

// canonicalUnit writes the units of time the mails spell out (usec, secs)
// as kdelta writes them, so an imported table's unit is a run's.
func canonicalUnit(u string) string {
	switch u {
	case "usec", "usecs", "µs":
		return "us"
	case "msec", "msecs":
		return "ms"
	case "nsec", "nsecs":
		return "ns"
	case "sec", "secs", "second", "seconds":
		return "s"
	}
	return u
}

// variantMetric names the one quantity of a table of variants: a time, or
// a value.
func variantMetric(unit string) string {
	if _, ok := timeUnits[unit]; ok {
		return "time"
	}
	return "value"
}

// derivedColumn tells whether column c holds changes the mail computed:
// its header says so, or its cells are worded changes ("31.61% faster").
func (t *table) derivedColumn(c int) bool {
	if isDerivedHeader(t.header[c]) {
		return true
	}
	for _, r := range t.rows {
		if missingCell(r[c]) {
			continue
		}
		cl, ok := parseClaim(r[c], "")
		return ok && !cl.signed
	}
	return false
}

// variantHeaderWords are words of headers that name a variant.
// A header that starts with a version ("6.15 (no PREEMPT_RCU)") names a
// kernel.
var variantHeaderRE = regexp.MustCompile(`(?i)\b(with|without|w/o?|before|after|baseline|patched|unpatched|vanilla|old|new|default)\b|^v?\d+\.\d+`)

// columnVariants tells whether the columns of numbers are the variants
// compared: two or more, one unit given by the header, no run column, and
// a derived column or headers that name variants.
func columnVariants(header []string, cols []tableCol) bool {
	n, named, derived := 0, 0, false
	unit := ""
	for c, col := range cols {
		switch {
		case col.run:
			return false
		case col.derived:
			derived = true
		case col.metric:
			if n > 0 && col.unit != unit {
				return false
			}
			unit = col.unit
			n++
			if variantHeaderRE.MatchString(header[c]) {
				named++
			}
		}
	}
	return n >= 2 && unit != "" && (derived || named >= 2)
}

// readColumnVariants reads a table whose columns of numbers are variants:
// a benchmark per row and variant, with one metric, and the derived
// columns kept as claims on the variant they favour or disfavour.
func (t *table) readColumnVariants(in *input, s *Set, bs *benches, workload string, base map[string]string, cols []tableCol) error {
	in.variants = true
	var value []int
	for c, col := range cols {
		if col.metric && !col.derived {
			value = append(value, c)
		}
	}
	unit := canonicalUnit(cols[value[0]].unit)
	m := Metric{Name: variantMetric(unit), Unit: unit}
	var known bool
	if m.Better, known = tableBetter(t.header[value[0]], unit); !known {
		s.Warnings = append(s.Warnings, in.warnf(t.line, "table: the variants' values have no known direction: taken as lower is better"))
	}
	names := make([]string, len(cols))
	for _, c := range value {
		name, _ := headerUnit(t.header[c])
		if names[c] = variantName(name); names[c] == "" {
			names[c] = "col" + strconv.Itoa(c+1)
		}
	}
	for ri, row := range t.rows {
		ln := t.lines[ri]
		params := map[string]string{}
		for k, v := range base {
			params[k] = v
		}
		for c, col := range cols {
			if col.param {
				params[col.name] = row[c]
			}
		}
		runs := map[int]*Run{}
		vals := map[int]float64{}
		for _, c := range value {
			if missingCell(row[c]) {
				continue
			}
			if approxCell(row[c]) {
				s.Warnings = append(s.Warnings, in.warnf(ln, "table: %q in column %q is approximate; left out", row[c], t.header[c]))
				continue
			}
			v, u, ok := parseCell(row[c])
			if !ok {
				return in.errorf(ln, "expected a number in column %q, found %q", t.header[c], row[c])
			}
			if u != "" && canonicalUnit(u) != unit {
				return in.errorf(ln, "column %q mixes units %s and %s", t.header[c], unit, u)
			}
			b := bs.get(workload, paramsOf(params, names[c]))
			addMetric(b, m)
			r := addRun(b)
			r.Values[m.Name] = v
			runs[c], vals[c] = r, v
		}
		for c, col := range cols {
			if !col.derived || isBaselineCell(row[c]) {
				continue
			}
			cl, ok := parseClaim(row[c], t.header[c])
			if !ok {
				return in.errorf(ln, "expected a change in column %q (31.61%% faster, +1.6%%), found %q", t.header[c], row[c])
			}
			t.placeClaim(in, s, ln, cl, m.Better, value, names, runs, vals)
		}
	}
	return nil
}

// placeClaim finds the pair of variants whose values give the claim, and
// keeps it on the run of the one it describes, relative to the other; when
// no pair does, it keeps it with the pair that comes closest, and warns.
func (t *table) placeClaim(in *input, s *Set, line int, cl claim, better Better, value []int, names []string, runs map[int]*Run, vals map[int]float64) {
	for _, a := range value {
		for _, b := range value {
			if a == b || runs[a] == nil || runs[b] == nil {
				continue
			}
			if cl.agrees(vals[a], vals[b], better) {
				keepClaim(runs[b], cl, names[a])
				return
			}
		}
	}
	// None agrees: the claim goes with the pair whose values come
	// closest to it.
	ra, rb, best := -1, -1, math.Inf(1)
	for _, a := range value {
		for _, b := range value {
			if a == b || runs[a] == nil || runs[b] == nil {
				continue
			}
			if d := math.Abs(cl.implied(vals[a], vals[b], better) - cl.pct); d < best {
				ra, rb, best = a, b, d
			}
		}
	}
	if ra < 0 {
		return
	}
	keepClaim(runs[rb], cl, names[ra])
	s.Warnings = append(s.Warnings, claimWarning(in, line, cl, names[rb]+" vs "+names[ra], vals[ra], vals[rb], better))
}

// rowVariants returns the column that names the variants when the rows of
// a table are the variants compared: rows named by text cells, with a
// derived column or remarks of change after their values, as seed mail
// 000's SELinux modes ("vs enforcing") and kernels ("70,281 (-32%)") are.
// The column is the first of a kernel, a mode or a configuration, else the
// first text column; -1 when rows are runs or benchmarks.
func (t *table) rowVariants(cols []tableCol) int {
	name, first, claims := -1, -1, false
	for c, col := range cols {
		switch {
		case col.run:
			return -1
		case col.derived:
			claims = true
		case col.param && name < 0 && tableLabelHeaders[col.name]:
			name = c
		case col.metric && first < 0:
			first = c
		}
	}
	if name < 0 {
		for c, col := range cols {
			if col.param {
				name = c
				break
			}
		}
	}
	for ri := 1; first >= 0 && !claims && ri < len(t.rows); ri++ {
		if m := remarkRE.FindStringSubmatch(t.rows[ri][first]); m != nil {
			_, claims = parseClaim(m[1], "")
		}
	}
	if !claims {
		return -1
	}
	return name
}

// rowLabel names row ri: its variant when the rows are variants (nameCol),
// else its text cells.
func (t *table) rowLabel(ri int, cols []tableCol, nameCol int) string {
	if nameCol >= 0 {
		if v := variantName(t.rows[ri][nameCol]); v != "" {
			return v
		}
		return "row" + strconv.Itoa(ri+1)
	}
	var parts []string
	for c, col := range cols {
		if col.param {
			parts = append(parts, t.rows[ri][c])
		}
	}
	return strings.Join(parts, " ")
}

// rowClaims keeps the derived cells of a table whose rows are runs,
// benchmarks or variants (nameCol, as rowVariants gives it) as claims,
// each relative to the row marked baseline (else the first), checked on
// the first column of numbers.
func (t *table) rowClaims(in *input, s *Set, cols []tableCol, runs []*Run, nameCol int) {
	first := -1
	for c, col := range cols {
		if col.metric {
			first = c
			break
		}
	}
	if first < 0 {
		return
	}
	a, okA := runs[0].Values[cols[first].name]
	better, _ := tableBetter(t.header[first], cols[first].unit)
	// A remark after the first value ("70,281 (-32%)") is relative to the
	// first row.
	for ri, row := range t.rows {
		m := remarkRE.FindStringSubmatch(row[first])
		if ri == 0 || m == nil {
			continue
		}
		cl, ok := parseClaim(m[1], "")
		if !ok {
			continue
		}
		keepClaim(runs[ri], cl, t.rowLabel(0, cols, nameCol))
		if b, okB := runs[ri].Values[cols[first].name]; okA && okB && !cl.agrees(a, b, better) {
			s.Warnings = append(s.Warnings, claimWarning(in, t.lines[ri], cl, t.header[first], a, b, better))
		}
	}
	for c, col := range cols {
		if !col.derived {
			continue
		}
		ref := 0
		for ri, row := range t.rows {
			if isBaselineCell(row[c]) && strings.TrimSpace(row[c]) != "" {
				ref = ri
				break
			}
		}
		a, okA := runs[ref].Values[cols[first].name]
		for ri, row := range t.rows {
			if ri == ref || isBaselineCell(row[c]) {
				continue
			}
			cl, ok := parseClaim(row[c], t.header[c])
			if !ok {
				s.Warnings = append(s.Warnings, in.warnf(t.lines[ri], "table: %q in column %q is not a change; left out", row[c], t.header[c]))
				continue
			}
			keepClaim(runs[ri], cl, t.rowLabel(ref, cols, nameCol))
			b, okB := runs[ri].Values[cols[first].name]
			if okA && okB && !cl.agrees(a, b, better) {
				s.Warnings = append(s.Warnings, claimWarning(in, t.lines[ri], cl, t.header[first], a, b, better))
			}
		}
	}
}

// remarkRE is a remark in parentheses after a value.
var remarkRE = regexp.MustCompile(`^` + numPat + `\s*\S*\s+(\(.*\))\s*$`)

// spaceSplitRE splits a row aligned with spaces: two or more spaces, or a
// tab, end a cell.
var spaceSplitRE = regexp.MustCompile(`\t+|\s{2,}`)

func spaceCells(l string) []string {
	t := strings.TrimSpace(l)
	if t == "" || strings.Contains(t, "|") {
		return nil
	}
	cells := spaceSplitRE.Split(t, -1)
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// unitHeaderRE is a header cell with a unit in parentheses: Mean(us).
var unitHeaderRE = regexp.MustCompile(`^[^()]+\(\s*[^()\s]+\s*\)$`)

// findSpaceTables finds the tables aligned with spaces: a header of two or
// more cells, then a rule of dashes, or a header that numbers runs and
// gives units (Run  Mean(us)); then rows of as many cells, one of them a
// number, up to a blank line or a line of one cell.
func findSpaceTables(in *input, used []bool) ([]*table, error) {
	var tables []*table
	n := len(in.lines)
	for i := 0; i+1 < n; i++ {
		if used[i] {
			continue
		}
		header := spaceCells(tableLine(in.lines[i]))
		if len(header) < 2 || isTableSep(tableLine(in.lines[i])) {
			continue
		}
		k := i + 1
		if l := tableLine(in.lines[k]); isTableSep(l) && !strings.Contains(l, "|") && !used[k] {
			k++
		} else if !tableRunHeaders[strings.ToLower(header[0])] || !unitHeaderRE.MatchString(header[1]) {
			continue
		}
		t := &table{line: i + 1, kind: spaceTable, header: header}
		for ; k < n && !used[k]; k++ {
			l := tableLine(in.lines[k])
			if isTableSep(l) && strings.TrimSpace(l) != "" && !strings.Contains(l, "|") {
				continue
			}
			cells := spaceCells(l)
			if len(cells) < 2 {
				break
			}
			if len(cells) != len(header) {
				if len(t.rows) == 0 {
					break
				}
				return nil, in.errorf(k+1, "expected %d cells as in the header of line %d, found %d (columns are two or more spaces apart)", len(header), t.line, len(cells))
			}
			t.rows = append(t.rows, cells)
			t.lines = append(t.lines, k+1)
		}
		if len(t.rows) == 0 || !anyNumber(t.rows[0]) {
			continue
		}
		for j := i; j < k; j++ {
			used[j] = true
		}
		tables = append(tables, t)
		i = k - 1
	}
	return tables, nil
}

// findHeaderlessTables finds rows aligned with spaces under no header,
// each a name and a value, the later ones with the mail's change after
// the value, as seed mail 000 compares two x86_64 kernels:
//
//	6.12 x86_64         37,436
//	7.2 x86_64          36,392 (-2.8%)
//
// Without a remark of change such rows are prose as likely as a table.
func findHeaderlessTables(in *input, used []bool) ([]*table, error) {
	var tables []*table
	n := len(in.lines)
	row := func(k int) []string {
		if k >= n || used[k] {
			return nil
		}
		cells := spaceCells(tableLine(in.lines[k]))
		if len(cells) != 2 || !strings.ContainsAny(cells[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			return nil
		}
		if _, _, ok := parseCell(cells[1]); !ok {
			return nil
		}
		return cells
	}
	for i := 0; i < n; i++ {
		if row(i) == nil {
			continue
		}
		t := &table{line: i + 1, kind: spaceTable, header: []string{"name", "value"}}
		k, claims := i, false
		for ; row(k) != nil; k++ {
			cells := row(k)
			if m := remarkRE.FindStringSubmatch(cells[1]); m != nil && k > i {
				_, ok := parseClaim(m[1], "")
				claims = claims || ok
			}
			t.rows = append(t.rows, cells)
			t.lines = append(t.lines, k+1)
		}
		if len(t.rows) >= 2 && claims {
			for j := i; j < k; j++ {
				used[j] = true
			}
			tables = append(tables, t)
		}
		i = k - 1
	}
	return tables, nil
}

func anyNumber(cells []string) bool {
	for _, c := range cells {
		if _, _, ok := parseCell(c); ok {
			return true
		}
	}
	return false
}

// listItemRE is an item of a numbered list of variants: number, name,
// value with its unit, and a remark in parentheses.
var listItemRE = regexp.MustCompile(`^\s*(\d+)\s*[-–—.):]\s*(.*?\S)\s*:\s*(` + numPat + `)\s*([A-Za-zµ/]+)?\s*(\(.*\))?\s*$`)

// findListTables finds numbered lists of two or more variants, numbered
// from 1 on consecutive lines. Each item is a row: its number, name, value
// and unit, and remark.
func findListTables(in *input, used []bool) ([]*table, error) {
	var tables []*table
	n := len(in.lines)
	for i := 0; i < n; i++ {
		if used[i] {
			continue
		}
		m := listItemRE.FindStringSubmatch(tableLine(in.lines[i]))
		if m == nil || m[1] != "1" {
			continue
		}
		t := &table{line: i + 1, kind: listTable}
		k := i
		for ; k < n && !used[k]; k++ {
			m := listItemRE.FindStringSubmatch(tableLine(in.lines[k]))
			if m == nil || m[1] != strconv.Itoa(len(t.rows)+1) {
				break
			}
			t.rows = append(t.rows, m[1:6])
			t.lines = append(t.lines, k+1)
		}
		if len(t.rows) < 2 {
			continue
		}
		for j := i; j < k; j++ {
			used[j] = true
		}
		tables = append(tables, t)
		i = k - 1
	}
	return tables, nil
}

// readList reads a numbered list: a variant per item, one value each, the
// remarks as claims relative to the first item.
func (t *table) readList(in *input, s *Set, bs *benches, workload string, base map[string]string) error {
	in.variants = true
	unit := ""
	for _, r := range t.rows {
		if r[3] != "" {
			unit = canonicalUnit(r[3])
			break
		}
	}
	m := Metric{Name: variantMetric(unit), Unit: unit}
	m.Better, _ = tableBetter(t.title, unit)
	var vals []float64
	var runs []*Run
	var names []string
	for ri, r := range t.rows {
		v, err := parseNum(r[2])
		if err != nil {
			return in.errorf(t.lines[ri], "%v", err)
		}
		if u := canonicalUnit(r[3]); u != "" && u != unit {
			return in.errorf(t.lines[ri], "the list mixes units %s and %s", unit, r[3])
		}
		name := variantName(strings.ReplaceAll(r[1], "+", " plus "))
		if name == "" {
			name = r[0]
		}
		b := bs.get(workload, paramsOf(base, name))
		addMetric(b, m)
		run := addRun(b)
		run.Values[m.Name] = v
		vals, runs, names = append(vals, v), append(runs, run), append(names, name)
	}
	for ri, r := range t.rows {
		if ri == 0 || r[4] == "" {
			continue
		}
		cl, ok := parseClaim(r[4], "")
		if !ok {
			continue // a remark, not a change
		}
		keepClaim(runs[ri], cl, names[0])
		if !cl.agrees(vals[0], vals[ri], m.Better) {
			s.Warnings = append(s.Warnings, claimWarning(in, t.lines[ri], cl, names[ri]+" vs "+names[0], vals[0], vals[ri], m.Better))
		}
	}
	return nil
}

// statRows are the statistics a transposed table's rows may name, by the
// metric each becomes.
var statRows = map[string]string{"median": "median", "mean": "mean", "avg": "mean", "average": "mean",
	"min": "min", "minimum": "min", "max": "max", "maximum": "max", "p50": "median", "p90": "p90",
	"p95": "p95", "p99": "p99", "p99.9": "p99.9", "stddev": "stddev", "sd": "stddev", "std": "stddev"}

var (
	statRowRE   = regexp.MustCompile(`^\s*([A-Za-z][\w.]*)\s*:?\s+(.*)$`)
	statCellRE  = regexp.MustCompile(`^(` + numPat + `)([A-Za-zµ/]+)?$`)
	titleUnitRE = regexp.MustCompile(`\(\s*(?:in\s+)?([A-Za-zµ/]+)\s*\)\s*:?\s*$`)
)

// statRow reads a row of a transposed table: its statistic and values.
func statRow(l string) (string, []string, bool) {
	m := statRowRE.FindStringSubmatch(l)
	if m == nil {
		return "", nil, false
	}
	stat, ok := statRows[strings.ToLower(m[1])]
	if !ok {
		return "", nil, false
	}
	fields := strings.Fields(m[2])
	for _, f := range fields {
		if !statCellRE.MatchString(f) {
			return "", nil, false
		}
	}
	return stat, fields, len(fields) > 0
}

// findTransposedTables finds a header of two or more names over rows that
// each name a statistic and give one number per name.
func findTransposedTables(in *input, used []bool) ([]*table, error) {
	var tables []*table
	n := len(in.lines)
	for i := 0; i+1 < n; i++ {
		if used[i] {
			continue
		}
		header := strings.Fields(tableLine(in.lines[i]))
		if len(header) < 2 {
			continue
		}
		if _, _, ok := statRow(tableLine(in.lines[i])); ok {
			continue
		}
		t := &table{line: i + 1, kind: transposedTable, header: header}
		k := i + 1
		for ; k < n && !used[k]; k++ {
			stat, vals, ok := statRow(tableLine(in.lines[k]))
			if !ok {
				break
			}
			if len(vals) != len(header) {
				if len(t.rows) == 0 {
					break
				}
				return nil, in.errorf(k+1, "expected %d values as in the header of line %d, found %d", len(header), t.line, len(vals))
			}
			t.rows = append(t.rows, append([]string{stat}, vals...))
			t.lines = append(t.lines, k+1)
		}
		if len(t.rows) == 0 {
			continue
		}
		for j := i; j < k; j++ {
			used[j] = true
		}
		tables = append(tables, t)
		i = k - 1
	}
	return tables, nil
}

// readTransposed reads a transposed table: a variant per column, with a
// metric per statistic, in the unit of the line above ("(in usec)") or of
// the cells.
func (t *table) readTransposed(in *input, s *Set, bs *benches, workload string, base map[string]string) error {
	in.variants = true
	unit := ""
	if m := titleUnitRE.FindStringSubmatch(t.title); m != nil {
		unit = canonicalUnit(m[1])
	}
	names := make([]string, len(t.header))
	runs := make([]*Run, len(t.header))
	for c, h := range t.header {
		if names[c] = variantName(h); names[c] == "" {
			names[c] = strconv.Itoa(c + 1)
		}
		runs[c] = addRun(bs.get(workload, paramsOf(base, names[c])))
	}
	for ri, row := range t.rows {
		stat := row[0]
		for c, cell := range row[1:] {
			m := statCellRE.FindStringSubmatch(cell)
			v, err := parseNum(m[1])
			if err != nil {
				return in.errorf(t.lines[ri], "%v", err)
			}
			u := unit
			if m[2] != "" {
				u = canonicalUnit(m[2])
			}
			b := bs.get(workload, paramsOf(base, names[c]))
			if !hasMetric(b, stat) {
				better, _ := tableBetter(stat, u)
				addMetric(b, Metric{Name: stat, Unit: u, Better: better})
			}
			runs[c].Values[stat] = v
		}
	}
	return nil
}

// paramsOf is base with the variant's parameter.
func paramsOf(base map[string]string, variant string) map[string]string {
	p := map[string]string{VariantParam: variant}
	for k, x := range base {
		p[k] = x
	}
	return p
}

// numberedVariants names the numbered columns of transposed tables after
// the items of a numbered list of the same input: seed mail 002 numbers
// its configurations once ("1 - default") and heads a later table "1 2 3
// 4".
func numberedVariants(tables []*table) {
	names := map[string]string{}
	for _, t := range tables {
		if t.kind == listTable {
			for _, r := range t.rows {
				names[r[0]] = r[1]
			}
		}
	}
	if len(names) == 0 {
		return
	}
	for _, t := range tables {
		if t.kind != transposedTable {
			continue
		}
		for c, h := range t.header {
			if name, ok := names[h]; ok {
				t.header[c] = strings.ReplaceAll(name, "+", " plus ")
			}
		}
	}
}
