package result

import (
	"regexp"
	"strconv"
	"strings"
)

// perf bench prints one block per run:
//
//	# Running 'sched/pipe' benchmark:
//	# Executed 10000 pipe operations between two processes
//
//	     Total time: 0.119 [sec]
//
//	      11.987200 usecs/op
//	          83422 ops/sec
//
// Runs concatenated in one file become the runs of one benchmark (one per
// set of parameters). The metrics take the names kdelta's own syscall,
// pipe and messaging workloads report, so the two compare line by line:
// syscall basic gives ns/call and calls/s, sched pipe usecs/op and ops/s,
// sched messaging time; every benchmark also keeps its Total time as time.
// perf bench -f simple prints the total time alone, which says nothing of
// the benchmark: it is read only when the format is named.

var (
	benchRunningRE = regexp.MustCompile(`^#\s*Running\s+'?([\w.-]+/[\w.-]+)'?\s+benchmark`)
	benchSyscallRE = regexp.MustCompile(`^#\s*Executed\s+(\d+)\s+(\w+)\(\) calls`)
	benchPipeRE    = regexp.MustCompile(`^#\s*Executed\s+(\d+)\s+pipe operations between two (processes|threads)`)
	benchMsgFdsRE  = regexp.MustCompile(`^#\s*(\d+)\s+sender and receiver (processes|threads) per group`)
	benchMsgGrpRE  = regexp.MustCompile(`^#\s*(\d+)\s+groups == (\d+) (processes|threads) run`)
	benchTotalRE   = regexp.MustCompile(`^\s*Total time:\s*(` + numPat + `)\s*\[sec\]\s*$`)
	benchValueRE   = regexp.MustCompile(`^\s*(` + numPat + `)\s+([A-Za-z][\w/%]*)\s*$`)
)

// A benchRun is one "# Running" block being read.
type benchRun struct {
	line   int
	name   string
	params map[string]string
	ops    float64
	values map[string]float64
	// order keeps the values in the order printed, for metric order.
	order []Metric
}

func (r *benchRun) set(m Metric, v float64) {
	if _, ok := r.values[m.Name]; !ok {
		r.order = append(r.order, m)
	}
	r.values[m.Name] = v
}

// missing names a line that a complete run of a known benchmark prints
// and r lacks, or returns "" when r is complete.
func (r *benchRun) missing() string {
	need := map[string][]string{
		"syscall/basic":   {"time", "ns/call", "calls/s"},
		"sched/pipe":      {"time", "usecs/op", "ops/s"},
		"sched/messaging": {"time"},
	}
	what := map[string]string{
		"time": "'Total time: S [sec]'", "ns/call": "'N usecs/op'", "usecs/op": "'N usecs/op'",
		"calls/s": "'N ops/sec'", "ops/s": "'N ops/sec'",
	}
	if ks, ok := need[r.name]; ok {
		for _, k := range ks {
			if _, ok := r.values[k]; !ok {
				return what[k]
			}
		}
		return ""
	}
	if len(r.values) == 0 {
		return "'Total time: S [sec]' or 'VALUE UNIT'"
	}
	return ""
}

func detectPerfBench(in *input) int { return in.firstMatch(benchRunningRE) }

func readPerfBench(in *input, s *Set) error {
	if in.firstMatch(benchRunningRE) == 0 && bareNumbers(in) {
		return readPerfBenchSimple(in, s)
	}
	bs := newBenches(s)
	var cur *benchRun
	finish := func(endLine int) error {
		if cur == nil {
			return nil
		}
		if what := cur.missing(); what != "" {
			return in.errorf(endLine, "expected %s in the '%s' run of line %d", what, cur.name, cur.line)
		}
		b := bs.get("perf-bench-"+strings.ReplaceAll(cur.name, "/", "-"), cur.params)
		for _, m := range cur.order {
			addMetric(b, m)
		}
		r := addRun(b)
		r.Values = cur.values
		r.Ops = cur.ops
		cur = nil
		return nil
	}
	for i, l := range in.lines {
		ln := i + 1
		if m := benchRunningRE.FindStringSubmatch(l); m != nil {
			if err := finish(ln); err != nil {
				return err
			}
			cur = &benchRun{line: ln, name: m[1], params: map[string]string{}, values: map[string]float64{}}
			continue
		}
		if cur == nil {
			if benchTotalRE.MatchString(l) {
				return in.errorf(ln, "expected \"# Running 'SUITE/BENCH' benchmark:\" before the figures")
			}
			continue
		}
		if err := cur.readLine(in, ln, l); err != nil {
			return err
		}
	}
	if err := finish(in.lastLine()); err != nil {
		return err
	}
	if len(s.Benchmarks) == 0 {
		return in.errorf(in.firstLine(), "expected \"# Running 'SUITE/BENCH' benchmark:\" (perf bench output)")
	}
	return nil
}

// readLine reads one line inside a run's block.
func (r *benchRun) readLine(in *input, ln int, l string) error {
	if m := benchSyscallRE.FindStringSubmatch(l); m != nil && strings.HasPrefix(r.name, "syscall/") {
		r.params["syscall"] = m[2]
		r.params["calls"] = m[1]
		r.ops, _ = strconv.ParseFloat(m[1], 64)
		return nil
	}
	if m := benchPipeRE.FindStringSubmatch(l); m != nil {
		r.params["loops"] = m[1]
		r.params["mode"] = modeName(m[2])
		r.ops, _ = strconv.ParseFloat(m[1], 64)
		return nil
	}
	if m := benchMsgFdsRE.FindStringSubmatch(l); m != nil {
		r.params["fds"] = m[1]
		r.params["mode"] = modeName(m[2])
		return nil
	}
	if m := benchMsgGrpRE.FindStringSubmatch(l); m != nil {
		r.params["groups"] = m[1]
		return nil
	}
	if m := benchTotalRE.FindStringSubmatch(l); m != nil {
		v, err := parseNum(m[1])
		if err != nil {
			return in.errorf(ln, "Total time: %v", err)
		}
		r.set(Metric{Name: "time", Unit: "s", Better: Lower, Doc: "perf bench Total time"}, v)
		return nil
	}
	m := benchValueRE.FindStringSubmatch(l)
	if m == nil {
		// Other lines (warnings, a wrapped command's output) carry no
		// figure of the run.
		return nil
	}
	v, err := parseNum(m[1])
	if err != nil {
		return in.errorf(ln, "%s: %v", m[2], err)
	}
	unit := m[2]
	switch {
	case strings.HasPrefix(r.name, "syscall/") && unit == "usecs/op":
		// Scaled in decimal, so 0.617647 usecs/op is 617.647 ns exactly
		// as printed, not 617.6469999999999.
		ns, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "")+"e3", 64)
		if err != nil {
			ns = v * 1000
		}
		r.set(Metric{Name: "ns/call", Unit: "ns", Better: Lower, Doc: "time per call (perf's usecs/op × 1000)"}, ns)
	case strings.HasPrefix(r.name, "syscall/") && unit == "ops/sec":
		r.set(Metric{Name: "calls/s", Unit: "calls/s", Better: Higher, Doc: "calls per second (perf's ops/sec)"}, v)
	case unit == "usecs/op":
		r.set(Metric{Name: "usecs/op", Unit: "us", Better: Lower, Doc: "microseconds per operation"}, v)
	case unit == "ops/sec":
		r.set(Metric{Name: "ops/s", Unit: "ops/s", Better: Higher, Doc: "operations per second"}, v)
	default:
		name := strings.ReplaceAll(unit, "/sec", "/s")
		better := Lower
		if strings.HasSuffix(name, "/s") {
			better = Higher
		}
		r.set(Metric{Name: name, Unit: name, Better: better}, v)
	}
	return nil
}

// modeName turns perf's "processes"/"threads" into kdelta's mode values.
func modeName(s string) string {
	if s == "threads" {
		return "thread"
	}
	return "process"
}

// readPerfBenchSimple reads perf bench -f simple output: one total time in
// seconds per line and nothing else, so the benchmark is not known.
func readPerfBenchSimple(in *input, s *Set) error {
	b := newBenches(s).get("perf-bench", nil)
	addMetric(b, Metric{Name: "time", Unit: "s", Better: Lower, Doc: "perf bench -f simple total time"})
	for i, l := range in.lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		v, err := parseNum(l)
		if err != nil {
			return in.errorf(i+1, "expected a total time in seconds: %v", err)
		}
		r := addRun(b)
		r.Values["time"] = v
	}
	s.Warnings = append(s.Warnings, in.warnf(in.firstLine(),
		"perf bench -f simple output does not name the benchmark: imported as workload perf-bench"))
	return nil
}
