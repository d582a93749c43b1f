package result

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A SyntaxError reports input an importer cannot read: the file as the
// caller named it, the 1-based line, and what was expected there.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

// Error returns "FILE:LINE: MSG", the form compilers and benchfmt use.
func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// An importer reads one format into s, which Import has already given its
// identity (schema, ID, creation time, tool and source label).
type importer struct {
	name string
	// doc says what the format is, for error messages and help.
	doc string
	// detect returns the 1-based line of the first line that only this
	// format writes, or 0 when there is none.
	detect func(in *input) int
	read   func(in *input, s *Set) error
}

// importers are the formats Import reads, in the order Formats lists them.
var importers = []importer{
	{"perf-stat", "perf stat text output (with or without -r)", detectPerfStat, readPerfStat},
	{"perf-stat-csv", "perf stat -x, output", detectPerfStatCSV, readPerfStatCSV},
	{"perf-stat-json", "perf stat -j output", detectPerfStatJSON, readPerfStatJSON},
	{"perf-bench", "perf bench output (syscall basic, sched pipe, sched messaging, ...)", detectPerfBench, readPerfBench},
	{"stress-ng", "stress-ng --metrics or --metrics-brief output", detectStressNG, readStressNG},
	{"stress-ng-yaml", "stress-ng --yaml output", detectStressNGYAML, readStressNGYAML},
	{"hackbench", "rt-tests hackbench output", detectHackbench, readHackbench},
	{"schbench", "schbench output (its percentile blocks)", detectSchbench, readSchbench},
	{"cyclictest", "rt-tests cyclictest output (its per-thread lines)", detectCyclictest, readCyclictest},
	{"benchfmt", "Go benchmark format (go test -bench)", detectBenchfmt, readBenchfmt},
	{"table", "a Markdown or ASCII table with a header row", detectTable, readTable},
}

// Formats returns the names Import accepts as its format argument.
func Formats() []string {
	names := make([]string, len(importers))
	for i, im := range importers {
		names[i] = im.name
	}
	return names
}

// Import reads the output of another tool (perf stat, perf bench,
// stress-ng, hackbench, go test -bench) or a pasted table into a result
// set. name is the file the data came from: errors name it, and the set's
// "source" label is its base name. format is one of Formats, or "" to
// detect the format from signatures in the content; unknown or ambiguous
// content is an error. Input that cannot be read is a *SyntaxError naming
// the line and what was expected there. A table of variants (see
// ImportSets) is one set whose benchmarks carry the variant as a
// parameter.
func Import(name string, data []byte, format string) (*Set, error) {
	s, _, err := importSet(name, data, format)
	return s, err
}

// importSet is Import, and tells whether the set holds variants.
func importSet(name string, data []byte, format string) (*Set, bool, error) {
	in := newInput(name, data)
	var im *importer
	if format == "" {
		var err error
		if im, err = detect(in); err != nil {
			return nil, false, err
		}
	} else {
		for i := range importers {
			if importers[i].name == format {
				im = &importers[i]
			}
		}
		if im == nil {
			return nil, false, fmt.Errorf("unknown import format %q (one of %s)", format, strings.Join(Formats(), ", "))
		}
	}
	if in.blank() {
		return nil, false, in.errorf(1, "empty input: expected %s", im.doc)
	}
	created := time.Now().UTC().Truncate(time.Second)
	s := &Set{
		Schema:   Schema,
		Created:  created,
		Tool:     "import " + im.name,
		Labels:   map[string]string{"source": filepath.Base(name)},
		Complete: true,
	}
	if err := im.read(in, s); err != nil {
		return nil, false, err
	}
	if len(s.Benchmarks) == 0 {
		return nil, false, in.errorf(in.lastLine(), "no results found: expected %s", im.doc)
	}
	// Runs read without a time of their own start when the set does.
	for _, b := range s.Benchmarks {
		for _, r := range b.Runs {
			if r.Start.IsZero() {
				r.Start = s.Created
			}
		}
	}
	if f := checkValues(s, true); f != nil {
		line := in.lineOf(f)
		if line == 0 {
			line = in.firstLine()
		}
		return nil, false, in.errorf(line, "%s: %s %s %s; refused, not guessed", f.workload, f.where, strconv.FormatFloat(f.v, 'g', 6, 64), f.reason)
	}
	s.ID = importID(s.Created)
	if err := s.Check(); err != nil {
		return nil, false, fmt.Errorf("%s: import made an invalid result set (kdelta's bug): %v", name, err)
	}
	return s, in.variants, nil
}

// detect picks the one format whose signature the content holds. Output of
// perf stat wraps the output of the command it measured (perf bench,
// stress-ng, hackbench all print beside it), so a perf stat signature
// outranks theirs; any other pair of signatures is ambiguous.
func detect(in *input) (*importer, error) {
	if in.blank() {
		return nil, in.errorf(1, "empty input: expected one of %s", strings.Join(Formats(), ", "))
	}
	type hit struct {
		im   *importer
		line int
	}
	var hits []hit
	for i := range importers {
		if l := importers[i].detect(in); l > 0 {
			hits = append(hits, hit{&importers[i], l})
		}
	}
	var stat []hit
	for _, h := range hits {
		if strings.HasPrefix(h.im.name, "perf-stat") {
			stat = append(stat, h)
		}
	}
	if len(stat) > 0 {
		hits = stat
	}
	switch len(hits) {
	case 0:
		if bareNumbers(in) {
			return nil, in.errorf(in.firstLine(), "ambiguous input: bare numbers, as perf bench -f simple prints; name the format (perf-bench)")
		}
		return nil, in.errorf(in.firstLine(), "unknown format: expected one of %s output", strings.Join(Formats(), ", "))
	case 1:
		return hits[0].im, nil
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].line < hits[j].line })
	var what []string
	for _, h := range hits {
		what = append(what, fmt.Sprintf("%s (line %d)", h.im.name, h.line))
	}
	return nil, in.errorf(hits[0].line, "ambiguous input: looks like %s; name the format", strings.Join(what, " and "))
}

// input is a file split into lines, with its name for errors.
type input struct {
	name  string
	data  []byte
	lines []string
	// variants is set by a reader that found variants (VariantParam).
	variants bool
}

func newInput(name string, data []byte) *input {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return &input{name: name, data: data, lines: lines}
}

// errorf returns a *SyntaxError at the 1-based line.
func (in *input) errorf(line int, format string, args ...any) *SyntaxError {
	if line < 1 {
		line = 1
	}
	return &SyntaxError{File: in.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// warnf formats a warning that names the place it comes from.
func (in *input) warnf(line int, format string, args ...any) string {
	return fmt.Sprintf("%s:%d: %s", in.name, line, fmt.Sprintf(format, args...))
}

// blank tells whether the input holds nothing but white space.
func (in *input) blank() bool { return len(bytes.TrimSpace(in.data)) == 0 }

// firstLine is the first non-blank line, for errors about the whole input.
func (in *input) firstLine() int {
	for i, l := range in.lines {
		if strings.TrimSpace(l) != "" {
			return i + 1
		}
	}
	return 1
}

// lastLine is the last line, where an input that ends too early ends.
func (in *input) lastLine() int {
	if len(in.lines) == 0 {
		return 1
	}
	return len(in.lines)
}

// firstMatch returns the 1-based line of the first line re matches, or 0.
func (in *input) firstMatch(re *regexp.Regexp) int {
	for i, l := range in.lines {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

var bareNumberRE = regexp.MustCompile(`^\s*` + numPat + `\s*$`)

// bareNumbers tells whether every non-blank line is a number alone.
func bareNumbers(in *input) bool {
	n := 0
	for _, l := range in.lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !bareNumberRE.MatchString(l) {
			return false
		}
		n++
	}
	return n > 0
}

// numPat matches a decimal number as the tools print it, with optional
// thousands separators (perf stat's 3,080,508) and exponent.
const numPat = `[-+]?\d[\d,]*(?:\.\d*)?(?:[eE][-+]?\d+)?`

// thousandsRE is a number whose commas, if any, separate groups of three
// digits before the point: 3,080,508 but not 9,75 or 0,852988, which are
// decimal commas read wrong by a thousand or more if the commas were
// dropped.
var thousandsRE = regexp.MustCompile(`^[-+]?\d{1,3}(?:,\d{3})*(?:[.eE][^,]*)?$|^[^,]*$`)

// parseNum reads a number matched by numPat; it rejects what is not a
// finite number, so no NaN or Inf reaches a result file (JSON has none).
func parseNum(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if !thousandsRE.MatchString(s) {
		return 0, fmt.Errorf("bad number %q: a ',' here is not between thousands (is it a decimal comma? kdelta reads '.' as the decimal point)", s)
	}
	t := strings.ReplaceAll(s, ",", "")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad number %q: not finite", s)
	}
	return v, nil
}

// benches collects the benchmarks of an import by key, in the order they
// first appear.
type benches struct {
	set   *Set
	byKey map[string]*Benchmark
}

func newBenches(s *Set) *benches { return &benches{set: s, byKey: map[string]*Benchmark{}} }

// get returns the benchmark of workload with params, adding it to the set
// when it is new.
func (bs *benches) get(workload string, params map[string]string) *Benchmark {
	if params == nil {
		params = map[string]string{}
	}
	b := &Benchmark{Workload: workload, Params: params}
	if old, ok := bs.byKey[b.Key()]; ok {
		return old
	}
	bs.byKey[b.Key()] = b
	bs.set.Benchmarks = append(bs.set.Benchmarks, b)
	return b
}

// addMetric declares m on b unless b already has a metric of that name.
func addMetric(b *Benchmark, m Metric) {
	for _, old := range b.Metrics {
		if old.Name == m.Name {
			return
		}
	}
	b.Metrics = append(b.Metrics, m)
}

// hasMetric tells whether b declares metric name.
func hasMetric(b *Benchmark, name string) bool {
	for _, m := range b.Metrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

// addRun appends a measured run to b and returns it. The run lacks every
// figure of its own (exit code, times, context switches, RSS) until the
// importer sets one its tool printed.
func addRun(b *Benchmark) *Run {
	r := &Run{Index: len(b.Runs), Status: StatusOK, Values: map[string]float64{}, Lacks: FigAll}
	b.Runs = append(b.Runs, r)
	return r
}

// slug turns a phrase into a metric or workload name: lower case, runs of
// spaces and punctuation other than / . + % as one hyphen.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '/', r == '.', r == '+', r == '%', r == '_', r == ':':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		case r > 127:
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}
