package result

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// The Go benchmark format (go test -bench, and kdelta's own benchfmt
// export) is read with golang.org/x/perf/benchfmt. Each benchmark name is a
// benchmark: its base name the workload, its sub-benchmark parts the
// parameters ("/size=1" is size=1, "/fast" is sub1=fast, "-8" is
// gomaxprocs=8), each result line a run and each unit a metric, under the
// unit as written (ns/op, MB/s). Configuration keys common to every result
// (goos, cpu, kernel=...) become labels of the set; keys whose value
// changes between results become parameters of the benchmarks they are in.

var benchfmtLineRE = regexp.MustCompile(`^Benchmark\S*\s+\d+\s+` + numPat + `\s+\S`)

func detectBenchfmt(in *input) int { return in.firstMatch(benchfmtLineRE) }

// benchfmtResult is one result line, copied out of the reader's buffers.
type benchfmtResult struct {
	line   int
	name   string
	parts  []string
	iters  int
	config map[string]string
	values []benchfmt.Value
}

func readBenchfmt(in *input, s *Set) error {
	r := benchfmt.NewReader(bytes.NewReader(in.data), in.name)
	var results []benchfmtResult
	better := map[string]Better{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return &SyntaxError{File: in.name, Line: rec.Line, Msg: rec.Msg}
		case *benchfmt.UnitMetadata:
			if rec.Key == "better" {
				switch rec.Value {
				case "higher":
					better[rec.OrigUnit] = Higher
				case "lower":
					better[rec.OrigUnit] = Lower
				}
			}
		case *benchfmt.Result:
			_, line := rec.Pos()
			base, parts := rec.Name.Parts()
			if len(base) == 0 {
				return in.errorf(line, "expected a benchmark name after 'Benchmark'")
			}
			res := benchfmtResult{line: line, name: string(base), iters: rec.Iters, config: map[string]string{}}
			for _, p := range parts {
				res.parts = append(res.parts, string(p))
			}
			for _, c := range rec.Config {
				if c.File {
					res.config[c.Key] = string(c.Value)
				}
			}
			for _, v := range rec.Values {
				if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) || math.IsNaN(v.OrigValue) || math.IsInf(v.OrigValue, 0) {
					return in.errorf(line, "measurement in %s is not a finite number", v.Unit)
				}
			}
			res.values = append(res.values, rec.Values...)
			results = append(results, res)
		}
	}
	if err := r.Err(); err != nil {
		var se *benchfmt.SyntaxError
		if errors.As(err, &se) {
			return &SyntaxError{File: in.name, Line: se.Line, Msg: se.Msg}
		}
		return in.errorf(in.lastLine(), "%v", err)
	}
	if len(results) == 0 {
		return in.errorf(in.firstLine(), "expected Go benchmark results: lines like 'BenchmarkName  N  VALUE UNIT ...'")
	}

	// Keys with one value across all results are labels of the set.
	common := map[string]string{}
	for k, v := range results[0].config {
		common[k] = v
	}
	for _, res := range results[1:] {
		for k, v := range common {
			if x, ok := res.config[k]; !ok || x != v {
				delete(common, k)
			}
		}
	}
	keys := make([]string, 0, len(common))
	for k := range common {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "source" {
			continue // the file's own name is the source
		}
		s.Labels[k] = common[k]
	}

	bs := newBenches(s)
	warned := map[string]bool{}
	for _, res := range results {
		params := benchfmtParams(res.parts)
		for k, v := range res.config {
			if _, ok := common[k]; !ok {
				params[k] = v
			}
		}
		b := bs.get(res.name, params)
		run := addRun(b)
		run.Ops = float64(res.iters)
		for _, v := range res.values {
			unit, val := v.Unit, v.Value
			if v.OrigUnit != "" {
				unit, val = v.OrigUnit, v.OrigValue
			}
			if !hasMetric(b, unit) {
				dir, known := better[unit], true
				if dir == "" {
					dir, known = benchfmtBetter(unit)
				}
				if !known && !warned[unit] {
					warned[unit] = true
					s.Warnings = append(s.Warnings, in.warnf(res.line, "benchfmt: unit %s has no known direction: taken as lower is better (say it with 'Unit %s better=higher')", unit, unit))
				}
				addMetric(b, Metric{Name: unit, Unit: unit, Better: dir})
			}
			run.Values[unit] = val
		}
	}
	return nil
}

// benchfmtParams turns a name's sub-benchmark parts into parameters.
func benchfmtParams(parts []string) map[string]string {
	p := map[string]string{}
	for i, part := range parts {
		switch {
		case strings.HasPrefix(part, "/"):
			if k, v, ok := strings.Cut(part[1:], "="); ok && k != "" {
				p[k] = v
			} else {
				p["sub"+strconv.Itoa(i+1)] = part[1:]
			}
		case strings.HasPrefix(part, "-"):
			p["gomaxprocs"] = part[1:]
		}
	}
	return p
}

// benchfmtBetter guesses a unit's direction the way benchstat does: time,
// bytes and allocations per op are costs, anything per second a rate.
func benchfmtBetter(unit string) (Better, bool) {
	switch {
	case strings.HasSuffix(unit, "/s"), strings.HasSuffix(unit, "/sec"):
		return Higher, true
	case strings.HasSuffix(unit, "/op"):
		return Lower, true
	}
	return Lower, false
}
