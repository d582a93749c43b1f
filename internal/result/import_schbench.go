package result

import (
	"regexp"
	"strconv"
	"strings"
)

// schbench prints, to stderr, a block of percentiles for each thing it
// measures, at every interval and once more at the end:
//
//	Wakeup Latencies percentiles (usec) runtime 30 (s) (1025370 total samples)
//	          50.0th: 9          (293012 samples)
//	          90.0th: 14         (395466 samples)
//	        * 99.0th: 22         (87011 samples)
//	          99.9th: 60         (9213 samples)
//	          min=1, max=5821
//	Request Latencies percentiles (usec) runtime 30 (s) (102716 total samples)
//	...
//	RPS percentiles (requests) runtime 30 (s) (31 total samples)
//	          20.0th: 3404       (7 samples)
//	        * 50.0th: 3412       (11 samples)
//	          90.0th: 3428       (12 samples)
//	          min=3359, max=3440
//	average rps: 3423.87
//
// Older versions print "Latency percentiles (usec)" with "50.0000th: 39"
// lines and no sample counts. A block that repeats with a longer runtime
// is a later report of the same process and replaces the earlier one;
// one that repeats otherwise starts the next run. Each percentile is a
// metric ("wakeup-p99", "request-p50", "rps-p50") in the block's unit,
// lower better for latencies and higher for requests per second.

var (
	schHeaderRE = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z ]*?)\s+percentiles\s+\(([a-z]+)\)(?:\s+runtime\s+(\d+)\s+\(s\))?(?:\s+\((\d+) total samples\))?\s*$`)
	schPctRE    = regexp.MustCompile(`^\s*(\*\s*)?(\d+(?:\.\d+)?)th:\s*(` + numPat + `)\s*(?:\((\d+) samples\))?\s*$`)
	schMinMaxRE = regexp.MustCompile(`^\s*min=(\d+),\s*max=(\d+)\s*$`)
	schAvgRPSRE = regexp.MustCompile(`^\s*average rps:\s*(` + numPat + `)\s*$`)
)

func detectSchbench(in *input) int {
	for i, l := range in.lines {
		if m := schHeaderRE.FindStringSubmatch(l); m != nil && i+1 < len(in.lines) && schPctRE.MatchString(in.lines[i+1]) {
			return i + 1
		}
	}
	return 0
}

// schMetricBase names a block: "Wakeup Latencies" is wakeup, "RPS" rps,
// the old "Latency" latency.
func schMetricBase(label string) string {
	f := strings.Fields(strings.ToLower(label))
	if len(f) > 1 && strings.HasPrefix(f[len(f)-1], "latenc") {
		f = f[:len(f)-1]
	}
	return slug(strings.Join(f, " "))
}

// schPctName writes 99.0 as p99 and 99.9 as p99.9.
func schPctName(p string) string {
	v, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return "p" + p
	}
	return "p" + strconv.FormatFloat(v, 'f', -1, 64)
}

func readSchbench(in *input, s *Set) error {
	b := newBenches(s).get("schbench", nil)
	var run *Run
	runtimes := map[string]int{} // the last runtime of each block of this run
	block, unit := "", ""
	blockLine := 0
	pcts := 0
	endBlock := func(ln int) error {
		if block != "" && pcts == 0 {
			return in.errorf(blockLine, "schbench block %q has no percentile lines: expected '  50.0th: N (M samples)' under it", block)
		}
		block = ""
		return nil
	}
	for i, l := range in.lines {
		ln := i + 1
		if m := schHeaderRE.FindStringSubmatch(l); m != nil {
			if err := endBlock(ln); err != nil {
				return err
			}
			base := schMetricBase(m[1])
			rt := -1
			if m[3] != "" {
				rt, _ = strconv.Atoi(m[3])
			}
			prev, seen := runtimes[base]
			if run == nil || seen && !(rt > prev && prev >= 0) {
				run = addRun(b)
				runtimes = map[string]int{}
			}
			runtimes[base] = rt
			block, unit, blockLine, pcts = base, canonicalUnit(m[2]), ln, 0
			if unit == "requests" {
				unit = "requests/s"
			}
			if m[4] != "" {
				run.Info = setInfo(run.Info, base+"-samples", m[4])
			}
			continue
		}
		if m := schPctRE.FindStringSubmatch(l); m != nil {
			if block == "" {
				return in.errorf(ln, "schbench percentile line outside a block: expected '... percentiles (usec) ...' above it")
			}
			v, err := parseNum(m[3])
			if err != nil {
				return in.errorf(ln, "%v", err)
			}
			name := block + "-" + schPctName(m[2])
			better := Lower
			if block == "rps" {
				better = Higher
			}
			addMetric(b, Metric{Name: name, Unit: unit, Better: better, Doc: "schbench " + block + " " + m[2] + "th percentile"})
			run.Values[name] = v
			pcts++
			continue
		}
		if schMinMaxRE.MatchString(l) {
			if err := endBlock(ln); err != nil {
				return err
			}
			continue
		}
		if m := schAvgRPSRE.FindStringSubmatch(l); m != nil {
			if run == nil {
				return in.errorf(ln, "schbench 'average rps' before any percentile block")
			}
			v, err := parseNum(m[1])
			if err != nil {
				return in.errorf(ln, "%v", err)
			}
			addMetric(b, Metric{Name: "average-rps", Unit: "requests/s", Better: Higher, Doc: "schbench average requests per second"})
			run.Values["average-rps"] = v
			continue
		}
		if block != "" && strings.TrimSpace(l) != "" {
			if err := endBlock(ln); err != nil {
				return err
			}
		}
	}
	if err := endBlock(in.lastLine()); err != nil {
		return err
	}
	if len(b.Runs) == 0 {
		s.Benchmarks = nil
		return in.errorf(in.firstLine(), "expected schbench output: 'Wakeup Latencies percentiles (usec) ...' and its percentile lines")
	}
	// A run missing a metric another run has is a partial output: kept,
	// said.
	for _, r := range b.Runs {
		for _, m := range b.Metrics {
			if _, ok := r.Values[m.Name]; !ok {
				s.Warnings = append(s.Warnings, in.warnf(in.lastLine(), "schbench run %d has no %s: its output is partial", r.Index+1, m.Name))
			}
		}
	}
	return nil
}

func setInfo(info map[string]string, k, v string) map[string]string {
	if info == nil {
		info = map[string]string{}
	}
	info[k] = v
	return info
}
