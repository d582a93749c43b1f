package workload

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The parsers below read the text a reference tool printed (stdout and
// stderr together, as the command workload captures them) and return its
// figures keyed by the metric names of the command workload. They accept
// the output of one benchmark: several results in one text are an error,
// since a run has one value per metric.

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

var (
	perfTotalRe = regexp.MustCompile(`^\s*Total time:\s*(\S+)\s*\[sec\]\s*$`)
	perfUsecsRe = regexp.MustCompile(`^\s*(\S+)\s+usecs/op\s*$`)
	perfOpsRe   = regexp.MustCompile(`^\s*(\S+)\s+ops/sec\s*$`)
	hackTimeRe  = regexp.MustCompile(`^\s*Time:\s*(\S+)\s*$`)
	// A stress-ng log line: "stress-ng: metrc: [6566] kill  2000 ...".
	// The level is "metrc" in newer versions and "info" in older ones.
	stressPrefixRe = regexp.MustCompile(`^stress-ng:\s*[a-z]+:\s*\[\d+\]\s?`)
	stressHeaderRe = regexp.MustCompile(`^stressor\s+bogo ops\s+real time\s+usr time\s+sys time\s+bogo ops/s`)
	stressKillRe   = regexp.MustCompile(`^kill\s+(\S+)\s+kill calls per sec\b`)
)

// ParsePerfBench reads the default output of one perf bench run:
//
//	Total time: 0.013 [sec]       -> time (s)
//	0.138150 usecs/op             -> usecs/op, when printed
//	7238508 ops/sec               -> ops/sec, when printed
//
// The "Total time" line is required (perf bench -f simple prints a bare
// number, which this does not read).
func ParsePerfBench(text string) (map[string]float64, error) {
	m := map[string]float64{}
	lines := map[string]int{}
	for i, line := range splitLines(text) {
		for _, p := range []struct {
			key string
			re  *regexp.Regexp
		}{{"time", perfTotalRe}, {"usecs/op", perfUsecsRe}, {"ops/sec", perfOpsRe}} {
			sm := p.re.FindStringSubmatch(line)
			if sm == nil {
				continue
			}
			if prev, dup := lines[p.key]; dup {
				return nil, fmt.Errorf("perf bench output: line %d: a second %s result (the first is on line %d): run one benchmark per command", i+1, p.key, prev)
			}
			v, err := parseFigure(sm[1])
			if err != nil {
				return nil, fmt.Errorf("perf bench output: line %d: %s %q: %w", i+1, p.key, sm[1], err)
			}
			m[p.key] = v
			lines[p.key] = i + 1
		}
	}
	if _, ok := m["time"]; !ok {
		return nil, fmt.Errorf("perf bench output: no \"Total time: S [sec]\" line")
	}
	return m, nil
}

// ParseHackbench reads rt-tests hackbench's "Time: S" line into time (s).
func ParseHackbench(text string) (map[string]float64, error) {
	m := map[string]float64{}
	at := 0
	for i, line := range splitLines(text) {
		sm := hackTimeRe.FindStringSubmatch(line)
		if sm == nil {
			continue
		}
		if at != 0 {
			return nil, fmt.Errorf("hackbench output: line %d: a second Time line (the first is on line %d)", i+1, at)
		}
		v, err := parseFigure(sm[1])
		if err != nil {
			return nil, fmt.Errorf("hackbench output: line %d: Time %q: %w", i+1, sm[1], err)
		}
		m["time"], at = v, i+1
	}
	if at == 0 {
		return nil, fmt.Errorf("hackbench output: no \"Time: S\" line")
	}
	return m, nil
}

// ParseStressNG reads the metrics table stress-ng prints with --metrics or
// --metrics-brief (to stderr):
//
//	stressor  bogo ops real time  usr time  sys time  bogo ops/s ...
//	                    (secs)    (secs)    (secs)   (real time) ...
//	kill          2000      0.05      0.01      0.02    41890.26 ...
//
// The fifth figure of the stressor's row is bogo-ops/s (real time). The
// kill stressor's "kill calls per sec" line, when present, is
// kill-calls/s. The table must hold exactly one stressor.
func ParseStressNG(text string) (map[string]float64, error) {
	m := map[string]float64{}
	var (
		inTable  bool
		stressor string
		rowLine  int
		killLine int
	)
	for i, raw := range splitLines(text) {
		body := stressPrefixRe.ReplaceAllString(raw, "")
		body = strings.TrimSpace(body)
		switch {
		case stressHeaderRe.MatchString(body):
			inTable = true
			continue
		case stressKillRe.MatchString(body):
			inTable = false
			if killLine != 0 {
				return nil, fmt.Errorf("stress-ng output: line %d: a second kill calls per sec line (the first is on line %d)", i+1, killLine)
			}
			sm := stressKillRe.FindStringSubmatch(body)
			v, err := parseFigure(sm[1])
			if err != nil {
				return nil, fmt.Errorf("stress-ng output: line %d: kill calls per sec %q: %w", i+1, sm[1], err)
			}
			m["kill-calls/s"], killLine = v, i+1
			continue
		}
		if !inTable {
			continue
		}
		if strings.HasPrefix(body, "(") {
			continue // the units line under the header
		}
		f := strings.Fields(body)
		if len(f) < 6 || !allFigures(f[1:6]) {
			inTable = false // the table ended
			continue
		}
		if stressor != "" {
			return nil, fmt.Errorf("stress-ng output: line %d: a second stressor %q (the first, %q, is on line %d): run one stressor per command", i+1, f[0], stressor, rowLine)
		}
		v, err := parseFigure(f[5])
		if err != nil {
			return nil, fmt.Errorf("stress-ng output: line %d: bogo ops/s %q: %w", i+1, f[5], err)
		}
		m["bogo-ops/s"], stressor, rowLine = v, f[0], i+1
	}
	if stressor == "" {
		return nil, fmt.Errorf("stress-ng output: no metrics table with a stressor row (run stress-ng with --metrics or --metrics-brief)")
	}
	return m, nil
}

// parseFigure parses a figure a tool printed. Times and rates are finite
// and not negative; anything else means the line was not what it seemed.
func parseFigure(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("not a finite, non-negative number")
	}
	return v, nil
}

func allFigures(fields []string) bool {
	for _, s := range fields {
		if _, err := parseFigure(s); err != nil {
			return false
		}
	}
	return true
}

// splitLines splits text at newlines, dropping carriage returns.
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}
