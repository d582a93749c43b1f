package result

import (
	"regexp"
	"strconv"
	"strings"
)

// rt-tests cyclictest prints one line per measuring thread, rewritten in
// place while it runs (a pasted terminal keeps the last state; -q prints
// it once at the end):
//
//	# /dev/cpu_dma_latency set to 0us
//	policy: fifo: loadavg: 0.08 0.03 0.01 1/153 2110
//
//	T: 0 ( 2109) P:98 I:1000 C:  10000 Min:      2 Act:    3 Avg:    3 Max:      19
//	T: 1 ( 2110) P:98 I:1500 C:   6667 Min:      2 Act:    4 Avg:    3 Max:      25
//
// (" SMI:N" may follow Max). With a histogram (-h) the summary lines
// "# Min Latencies: 00002 00002", "# Avg Latencies: ..." and "# Max
// Latencies: ..." give the same figures per thread. Each thread is a
// benchmark "cyclictest" with parameters thread, prio and interval; its
// minimum, average and maximum latencies are metrics, lower better. A
// thread's line that repeats with more cycles is a later state of the
// same run; one that repeats otherwise starts the next run. cyclictest
// prints no unit: microseconds unless it ran with --nsecs, which the
// output does not show, so the set says it read microseconds.

var (
	cycThreadRE = regexp.MustCompile(`^\s*T:\s*(\d+)\s+\(\s*(\d+)\)\s+P:\s*(-?\d+)\s+I:\s*(\d+)\s+C:\s*(\d+)\s+Min:\s*(-?\d+)\s+Act:\s*(-?\d+)\s+Avg:\s*(-?\d+)\s+Max:\s*(-?\d+)(?:\s+SMI:\s*(\d+))?\s*$`)
	cycHistRE   = regexp.MustCompile(`^\s*#\s*(Min|Avg|Max) Latencies:((?:\s+\d+)+)\s*$`)
	cycLooseRE  = regexp.MustCompile(`^\s*T:\s*\d+\s`)
)

var (
	cycMin = Metric{Name: "min", Unit: "us", Better: Lower, Doc: "cyclictest minimum wake-up latency"}
	cycAvg = Metric{Name: "avg", Unit: "us", Better: Lower, Doc: "cyclictest average wake-up latency"}
	cycMax = Metric{Name: "max", Unit: "us", Better: Lower, Doc: "cyclictest maximum wake-up latency"}
)

func detectCyclictest(in *input) int {
	if l := in.firstMatch(cycThreadRE); l > 0 {
		return l
	}
	return in.firstMatch(cycHistRE)
}

func readCyclictest(in *input, s *Set) error {
	bs := newBenches(s)
	type last struct {
		run    *Run
		cycles float64
	}
	current := map[string]last{}
	hist := map[string][]string{}
	histLine := 0
	for i, l := range in.lines {
		ln := i + 1
		if m := cycThreadRE.FindStringSubmatch(l); m != nil {
			params := map[string]string{"thread": m[1], "prio": m[3], "interval": m[4]}
			b := bs.get("cyclictest", params)
			for _, mt := range []Metric{cycMin, cycAvg, cycMax} {
				addMetric(b, mt)
			}
			var v [4]float64
			for k, idx := range []int{5, 6, 8, 9} {
				x, err := parseNum(m[idx])
				if err != nil {
					return in.errorf(ln, "%v", err)
				}
				v[k] = x
			}
			key := b.Key()
			r := current[key].run
			if r == nil || v[0] <= current[key].cycles {
				r = addRun(b)
			}
			current[key] = last{r, v[0]}
			r.Values["min"], r.Values["avg"], r.Values["max"] = v[1], v[2], v[3]
			r.Info = setInfo(r.Info, "cycles", m[5])
			r.Info = setInfo(r.Info, "line", strconv.Itoa(ln))
			continue
		}
		if m := cycHistRE.FindStringSubmatch(l); m != nil {
			hist[m[1]] = strings.Fields(m[2])
			histLine = ln
			continue
		}
		if cycLooseRE.MatchString(l) {
			return in.errorf(ln, "cyclictest thread line not in its layout: expected 'T: N (TID) P:PRIO I:INTERVAL C:CYCLES Min:N Act:N Avg:N Max:N'")
		}
	}
	if len(s.Benchmarks) == 0 && len(hist) > 0 {
		n := len(hist["Max"])
		for _, k := range []string{"Min", "Avg", "Max"} {
			if len(hist[k]) != n || n == 0 {
				return in.errorf(histLine, "cyclictest histogram summary: expected '# Min Latencies:', '# Avg Latencies:' and '# Max Latencies:' with one value per thread each")
			}
		}
		for t := 0; t < n; t++ {
			b := bs.get("cyclictest", map[string]string{"thread": strconv.Itoa(t)})
			for _, mt := range []Metric{cycMin, cycAvg, cycMax} {
				addMetric(b, mt)
			}
			r := addRun(b)
			for _, k := range []string{"Min", "Avg", "Max"} {
				v, err := parseNum(hist[k][t])
				if err != nil {
					return in.errorf(histLine, "%v", err)
				}
				r.Values[strings.ToLower(k)] = v
			}
		}
	}
	if len(s.Benchmarks) == 0 {
		return in.errorf(in.firstLine(), "expected cyclictest output: 'T: 0 ( TID) P:98 I:1000 C: N Min: N Act: N Avg: N Max: N'")
	}
	s.Warnings = append(s.Warnings, in.warnf(in.firstLine(), "cyclictest prints no unit: read as microseconds, its default (not --nsecs)"))
	return nil
}
