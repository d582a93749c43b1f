package result

import (
	"regexp"
	"strconv"
	"strings"
)

// stress-ng --metrics (or --metrics-brief) writes to stderr:
//
//	stress-ng: metrc: [10118] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s CPU used per       RSS Max
//	stress-ng: metrc: [10118]                           (secs)    (secs)    (secs)   (real time) (usr+sys time) instance (%)          (KB)
//	stress-ng: metrc: [10118] kill               2000      0.38      0.01      0.03      5217.77       53697.04         9.72          2556
//	stress-ng: metrc: [10118] miscellaneous metrics:
//	stress-ng: metrc: [10118] kill              250730.54 kill calls per sec (geometic mean of 1 instances)
//
// Older versions log the same lines at level info, --metrics-brief drops
// the last two columns, and --log-brief drops the "stress-ng: metrc:
// [PID]" prefix. Every stressor is a benchmark "stress-ng-STRESSOR"; every
// stress-ng process (PID, or header without one) is a run.

var (
	sngPrefixRE   = regexp.MustCompile(`^\s*stress-ng:\s*(\w+):\s*\[(\d+)\]\s?(.*)$`)
	sngHeaderRE   = regexp.MustCompile(`^\s*stressor\s+bogo ops`)
	sngDispatchRE = regexp.MustCompile(`dispatching hogs:\s*(.*)$`)
	sngMiscRE     = regexp.MustCompile(`^\s*(\S+)\s+(` + numPat + `)\s+(.+?)\s*\((?:[a-z]+\s+)?mean of (\d+) instances?\)\s*$`)
	sngDataRE     = regexp.MustCompile(`^\s*([A-Za-z][\w.+-]*)((?:\s+` + numPat + `)+)\s*$`)
	sngHogRE      = regexp.MustCompile(`(\d+)\s+([\w.+-]+)`)
)

// Metrics of every stressor, as the metrics line and the YAML give them.
var (
	sngBogoRate = Metric{Name: "bogo-ops/s", Unit: "bogo-ops/s", Better: Higher, Doc: "bogo ops per second of real time"}
	sngBogoCPU  = Metric{Name: "bogo-ops/s-usr-sys", Unit: "bogo-ops/s", Better: Higher, Doc: "bogo ops per second of usr+sys time"}
	sngReal     = Metric{Name: "real-time", Unit: "s", Better: Lower, Doc: "wall-clock time of the stressor"}
	sngUsr      = Metric{Name: "usr-time", Unit: "s", Better: Lower, Doc: "user time of the stressor's instances"}
	sngSys      = Metric{Name: "sys-time", Unit: "s", Better: Lower, Doc: "system time of the stressor's instances"}
)

// timeWords are numerators that make a "X per Y" metric a cost.
var timeWords = map[string]bool{
	"nanosecs": true, "nanoseconds": true, "nsec": true, "ns": true, "microsecs": true, "microseconds": true,
	"usecs": true, "usec": true, "us": true, "millisecs": true, "milliseconds": true, "msecs": true, "ms": true,
	"secs": true, "seconds": true, "sec": true, "cycles": true,
}

// sngMisc names one of stress-ng's miscellaneous metrics from its
// description ("kill calls per sec" becomes kill-calls/s in calls/s,
// higher is better). guessed is true when the description gives no
// direction.
func sngMisc(desc string) (m Metric, guessed bool) {
	d := strings.Join(strings.Fields(strings.ToLower(desc)), " ")
	m.Doc = d
	for _, suf := range []string{" per second", " per sec"} {
		if base, ok := strings.CutSuffix(d, suf); ok && base != "" {
			w := strings.Fields(base)
			m.Name = slug(base) + "/s"
			m.Unit = slug(w[len(w)-1]) + "/s"
			m.Better = Higher
			return m, false
		}
	}
	if num, den, ok := strings.Cut(d, " per "); ok && num != "" && den != "" {
		m.Name = slug(num) + "/" + slug(den)
		m.Unit = m.Name
		m.Better = Higher
		if timeWords[num] {
			m.Better = Lower
		}
		return m, false
	}
	m.Name, m.Better = slug(d), Higher
	return m, true
}

func detectStressNG(in *input) int {
	for i, l := range in.lines {
		if m := sngPrefixRE.FindStringSubmatch(l); m != nil && (sngHeaderRE.MatchString(m[3]) || sngMiscRE.MatchString(m[3])) {
			return i + 1
		}
	}
	return 0
}

// sngRunKey names the stress-ng process a line comes from.
type sngRunKey struct {
	run      string
	stressor string
}

func readStressNG(in *input, s *Set) error {
	bs := newBenches(s)
	var (
		runs      = map[sngRunKey]*Run{}
		instances = map[string]map[string]string{} // run -> stressor -> count
		headers   = map[string]int{}               // run -> line of its header
		got       = map[string]bool{}              // run -> a metrics line was read
		order     []string
		brief     int // headers seen without a prefix (--log-brief)
		guessed   = map[string]bool{}
	)
	runOf := func(key sngRunKey) *Run {
		if r, ok := runs[key]; ok {
			return r
		}
		b := bs.get("stress-ng-"+key.stressor, nil)
		for _, m := range []Metric{sngBogoRate, sngBogoCPU, sngReal, sngUsr, sngSys} {
			addMetric(b, m)
		}
		r := addRun(b)
		r.Counts = map[string]float64{}
		r.Info = map[string]string{}
		if n := instances[key.run][key.stressor]; n != "" {
			r.Info["instances"] = n
		}
		runs[key] = r
		return r
	}
	for i, l := range in.lines {
		ln := i + 1
		var run, rest string
		if m := sngPrefixRE.FindStringSubmatch(l); m != nil {
			level := m[1]
			run, rest = m[2], m[3]
			switch level {
			case "fail", "error":
				s.Warnings = append(s.Warnings, in.warnf(ln, "stress-ng: %s", strings.TrimSpace(rest)))
				continue
			case "metrc", "info":
			default:
				continue
			}
			if strings.Contains(rest, "unsuccessful run completed") {
				s.Warnings = append(s.Warnings, in.warnf(ln, "stress-ng: %s", strings.TrimSpace(rest)))
			}
		} else {
			if sngHeaderRE.MatchString(l) {
				brief++
			}
			if brief == 0 {
				continue
			}
			run, rest = "#"+strconv.Itoa(brief), l
		}
		if m := sngDispatchRE.FindStringSubmatch(rest); m != nil {
			hogs := map[string]string{}
			for _, h := range sngHogRE.FindAllStringSubmatch(m[1], -1) {
				hogs[h[2]] = h[1]
			}
			instances[run] = hogs
			continue
		}
		if sngHeaderRE.MatchString(rest) {
			if _, ok := headers[run]; !ok {
				order = append(order, run)
			}
			headers[run] = ln
			continue
		}
		if _, ok := headers[run]; !ok {
			continue
		}
		if m := sngMiscRE.FindStringSubmatch(rest); m != nil {
			v, err := parseNum(m[2])
			if err != nil {
				return in.errorf(ln, "%s: %v", m[3], err)
			}
			met, guess := sngMisc(m[3])
			if met.Name == "" || met.Name == "/s" {
				return in.errorf(ln, "expected a description of the metric after its value")
			}
			if guess && !guessed[met.Name] {
				guessed[met.Name] = true
				s.Warnings = append(s.Warnings, in.warnf(ln, "stress-ng: metric %q has no direction in its name: taken as higher is better", met.Name))
			}
			r := runOf(sngRunKey{run, m[1]})
			b := bs.get("stress-ng-"+m[1], nil)
			addMetric(b, met)
			r.Values[met.Name] = v
			if r.Info["instances"] == "" {
				r.Info["instances"] = m[4]
			}
			continue
		}
		m := sngDataRE.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		if len(f) < 6 {
			return in.errorf(ln, "expected bogo ops, real, usr and sys time, and two bogo ops/s figures after stressor %s, found %d numbers", m[1], len(f))
		}
		var x [8]float64
		for k := 0; k < len(f) && k < len(x); k++ {
			v, err := parseNum(f[k])
			if err != nil {
				return in.errorf(ln, "stressor %s: %v", m[1], err)
			}
			x[k] = v
		}
		r := runOf(sngRunKey{run, m[1]})
		r.Ops, r.Counts["bogo-ops"] = x[0], x[0]
		r.WallSec, r.UserSec, r.SysSec = x[1], x[2], x[3]
		r.Lacks &^= FigWall | FigUser | FigSys
		r.Values[sngReal.Name], r.Values[sngUsr.Name], r.Values[sngSys.Name] = x[1], x[2], x[3]
		r.Values[sngBogoRate.Name], r.Values[sngBogoCPU.Name] = x[4], x[5]
		if len(f) > 6 {
			r.Info["cpu_used_pct"] = strconv.FormatFloat(x[6], 'f', -1, 64)
		}
		if len(f) > 7 {
			r.MaxRSSKiB = int64(x[7])
			r.Lacks &^= FigMaxRSS
		}
		got[run] = true
	}
	for _, run := range order {
		if !got[run] {
			return in.errorf(in.lastLine(), "unexpected end of input: expected a metrics line per stressor after the header of line %d", headers[run])
		}
	}
	if len(order) == 0 {
		return in.errorf(in.firstLine(), "expected stress-ng --metrics output: a 'stressor  bogo ops  real time ...' header and a line per stressor")
	}
	return nil
}
