package workload

import (
	"fmt"
	"math"

	"github.com/kdelta/kdelta/internal/result"
)

// The parsers below read the text a reference tool printed (stdout and
// stderr together, as the command workload captures them) and return its
// figures keyed by the metric names of the command workload. They read it
// with the importers of internal/result (result.ReadRun), so a file given
// to kdelta import and the same text read by parse= give the same figures;
// only the names are the command workload's own. They accept the output of
// one benchmark run: several results in one text are an error, since a run
// has one value per metric.

// outputParsers are the parse= choices of the command workload, with the
// metrics each may report.
var outputParsers = map[string]struct {
	parse   func(string) (map[string]float64, error)
	metrics []string
}{
	"perf-bench": {ParsePerfBench, []string{"time", "usecs/op", "ops/sec"}},
	"stress-ng":  {ParseStressNG, []string{"bogo-ops/s", "kill-calls/s"}},
	"hackbench":  {ParseHackbench, []string{"time"}},
}

// A rename maps an importer's metric to the command workload's, with the
// factor that turns the one's value into the other's.
type rename struct {
	to     string
	factor float64
}

// ParsePerfBench reads the output of one perf bench run into time (its
// Total time, s), usecs/op and ops/sec, when printed. The importer names
// syscall basic's figures ns/call and calls/s, as kdelta's syscall
// workload does; here they are perf's usecs/op and ops/sec again.
func ParsePerfBench(text string) (map[string]float64, error) {
	return readRun("perf-bench", "perf bench output", text, map[string]rename{
		"time":     {"time", 1},
		"usecs/op": {"usecs/op", 1},
		"ns/call":  {"usecs/op", 1e-3},
		"ops/s":    {"ops/sec", 1},
		"calls/s":  {"ops/sec", 1},
	})
}

// ParseHackbench reads rt-tests hackbench's "Time: S" line into time (s).
func ParseHackbench(text string) (map[string]float64, error) {
	return readRun("hackbench", "hackbench output", text, map[string]rename{"time": {"time", 1}})
}

// ParseStressNG reads the metrics table stress-ng prints with --metrics or
// --metrics-brief (to stderr): the stressor's bogo ops/s (real time) as
// bogo-ops/s and, for the kill stressor, "kill calls per sec" as
// kill-calls/s. The table must hold exactly one stressor.
func ParseStressNG(text string) (map[string]float64, error) {
	return readRun("stress-ng", "stress-ng output", text, map[string]rename{
		"bogo-ops/s":   {"bogo-ops/s", 1},
		"kill-calls/s": {"kill-calls/s", 1},
	})
}

// readRun reads one run with the named importer and keeps the figures
// names maps, renamed. Times and rates are finite and not negative;
// anything else means the text was not what it seemed.
func readRun(format, what, text string, names map[string]rename) (map[string]float64, error) {
	values, err := result.ReadRun(format, what, text)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for k, v := range values {
		r, ok := names[k]
		if !ok {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("%s: %s %v is not a finite, non-negative number", what, k, v)
		}
		out[r.to] = v * r.factor
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: none of its figures (%s) in the output", what, figureNames(names))
	}
	return out, nil
}

func figureNames(names map[string]rename) string {
	seen := map[string]bool{}
	var s string
	for _, r := range names {
		if seen[r.to] {
			continue
		}
		seen[r.to] = true
		if s != "" {
			s += ", "
		}
		s += r.to
	}
	return s
}
