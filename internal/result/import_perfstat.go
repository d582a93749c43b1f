package result

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// perf stat's text output. One block looks like
//
//	 Performance counter stats for 'perf bench sched pipe -l 10000' (5 runs):
//
//	            40.39 msec task-clock        #    0.172 CPUs utilized   ( +- 15.08% )
//	            20007      context-switches  #  361.358 K/sec           ( +-  0.55% )
//	  <not supported>      cycles
//
//	            0.235 +- 0.123 seconds time elapsed  ( +- 52.48% )
//
// With -r every figure is a mean and "+- x%" its standard error relative to
// the mean (perf's stddev_stats divides the variance by n); without -r the
// block is one run and "seconds user" and "seconds sys" follow. Mails often
// quote the counter lines without the header (seed mail 001), sometimes as
// "MEAN +- STDERR EVENT ( +- x% )"; such lines are read when they carry a
// "+-" or "seconds time elapsed", so that prose around them is not taken for
// counters.

// A statEvent is one figure of a perf stat block.
type statEvent struct {
	name, unit string
	value      float64
	// stderr is the explicit "+- X" of the line; pct the "( +- x% )".
	stderr, pct float64
	explicit    bool
	noisy       bool
	// unsupported is set for <not supported> and <not counted>, with
	// reason saying which.
	unsupported bool
	reason      string
	line        int
}

// A statBlock is one perf stat report: the figures of one command, over
// one run or the mean of several.
type statBlock struct {
	line    int
	command string
	// runs is the -r count the output or its command line gives, 1 for a
	// block perf says is one run, 0 when nothing says.
	runs     int
	header   bool
	events   []statEvent
	elapsed  *statEvent
	user     *statEvent
	sys      *statEvent
	noisy    bool
	variance bool
	// unsupported lists the events without a value by reason, and the
	// line of the first.
	unsupported     map[string][]string
	unsupportedLine int
}

func (b *statBlock) has(name string) bool {
	for _, e := range b.events {
		if e.name == name {
			return true
		}
	}
	return false
}

var (
	statHeaderRE  = regexp.MustCompile(`^\s*Performance counter stats for (.*?)(?:\s+\((\d+) runs\))?:\s*$`)
	statCmdRE     = regexp.MustCompile(`^\s*(?:[#$>]+\s*)?(?:sudo\s+)?(?:\S*/)?perf\s+stat(?:\s+(.*))?$`)
	statValueRE   = regexp.MustCompile(`^\s*(` + numPat + `|<not supported>|<not counted>)\s+(?:\+-\s+(` + numPat + `)\s+)?(\S.*?)\s*$`)
	statNoiseRE   = regexp.MustCompile(`\(\s*\+-\s*(` + numPat + `)\s*%\s*\)`)
	statMuxRE     = regexp.MustCompile(`[(\[]\s*` + numPat + `\s*%\s*[)\]]`)
	statStartedRE = regexp.MustCompile(`^\s*#\s*started on\s+(.+?)\s*$`)
	// statIntervalRE is the column header of perf stat -I.
	statIntervalRE = regexp.MustCompile(`^\s*#\s+time\s+counts\s`)
)

// statUnits are the units perf stat prints between a value and its event.
var statUnits = map[string]bool{
	"msec": true, "usec": true, "nsec": true, "sec": true, "ms": true, "us": true, "ns": true,
	"Joules": true, "Watts": true, "MiB": true, "KiB": true, "GiB": true, "MB": true, "kB": true,
	"KB": true, "GB": true, "bytes": true, "%": true,
}

// Kinds of perf stat text lines.
const (
	statCounter = iota
	statElapsed
	statUser
	statSys
)

// parseStatLine reads a counter or time line. ok is false when the line
// does not have the shape of one.
func parseStatLine(l string, line int) (ev statEvent, kind int, ok bool, msg string) {
	m := statValueRE.FindStringSubmatch(l)
	if m == nil {
		return ev, 0, false, ""
	}
	ev.line = line
	switch m[1] {
	case "<not supported>", "<not counted>":
		ev.unsupported = true
		ev.reason = strings.Trim(m[1], "<>")
	default:
		v, err := parseNum(m[1])
		if err != nil {
			return ev, 0, false, err.Error()
		}
		ev.value = v
	}
	if m[2] != "" {
		v, err := parseNum(m[2])
		if err != nil {
			return ev, 0, false, err.Error()
		}
		ev.stderr, ev.explicit = v, true
	}
	rest := m[3]
	if n := statNoiseRE.FindStringSubmatchIndex(rest); n != nil {
		v, err := parseNum(rest[n[2]:n[3]])
		if err != nil {
			return ev, 0, false, err.Error()
		}
		ev.pct, ev.noisy = v, true
		rest = rest[:n[0]] + " " + rest[n[1]:]
	}
	rest = statMuxRE.ReplaceAllString(rest, " ")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	tok := strings.Fields(rest)
	if len(tok) == 0 {
		return ev, 0, false, "expected an event name after the value"
	}
	switch strings.Join(tok, " ") {
	case "seconds time elapsed":
		ev.name, ev.unit = "elapsed", "s"
		return ev, statElapsed, true, ""
	case "seconds user":
		ev.name, ev.unit = "user", "s"
		return ev, statUser, true, ""
	case "seconds sys":
		ev.name, ev.unit = "sys", "s"
		return ev, statSys, true, ""
	}
	if len(tok) >= 2 && statUnits[tok[0]] {
		ev.unit, tok = tok[0], tok[1:]
	}
	ev.name = strings.Join(tok, "-")
	return ev, statCounter, true, ""
}

// parseStatCommand reads a "perf stat ..." command line: the -r count (1
// without -r) and the measured command after "--" or after the options.
func parseStatCommand(args string) (runs int, command string) {
	f := strings.Fields(args)
	runs = 1
	// Options of perf stat that take a separate argument.
	withArg := map[string]bool{"-e": true, "-r": true, "-x": true, "-o": true, "-p": true, "-t": true,
		"-C": true, "-G": true, "-I": true, "-M": true, "-D": true, "--repeat": true, "--event": true,
		"--pid": true, "--tid": true, "--cpu": true, "--cgroup": true, "--output": true, "--delay": true,
		"--metrics": true, "--field-separator": true, "--log-fd": true, "--interval-print": true}
	for i := 0; i < len(f); i++ {
		a := f[i]
		switch {
		case a == "--":
			return runs, strings.Join(f[i+1:], " ")
		case a == "-r" || a == "--repeat":
			if i+1 < len(f) {
				if n, err := strconv.Atoi(f[i+1]); err == nil && n > 0 {
					runs = n
				}
			}
			i++
		case strings.HasPrefix(a, "--repeat="):
			if n, err := strconv.Atoi(strings.TrimPrefix(a, "--repeat=")); err == nil && n > 0 {
				runs = n
			}
		case strings.HasPrefix(a, "-r") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			if n, err := strconv.Atoi(a[2:]); err == nil && n > 0 {
				runs = n
			}
		case withArg[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return runs, strings.Join(f[i:], " ")
		}
	}
	return runs, ""
}

// parseStarted reads the "# started on" line perf stat -o writes, a local
// time in ctime's layout.
func parseStarted(s string) (time.Time, bool) {
	t, err := time.ParseInLocation("Mon Jan _2 15:04:05 2006", strings.Join(strings.Fields(s), " "), time.Local)
	if err != nil {
		t, err = time.ParseInLocation("Mon Jan 2 15:04:05 2006", strings.Join(strings.Fields(s), " "), time.Local)
	}
	return t.UTC(), err == nil
}

func detectPerfStat(in *input) int {
	for i, l := range in.lines {
		if statHeaderRE.MatchString(l) {
			return i + 1
		}
		ev, kind, ok, _ := parseStatLine(l, i+1)
		if ok && (kind == statElapsed || (kind == statCounter && (ev.noisy || ev.explicit))) {
			return i + 1
		}
	}
	return 0
}

func readPerfStat(in *input, s *Set) error {
	var (
		blocks  []*statBlock
		cur     *statBlock
		open    bool // cur began with a header and has not ended yet
		ended   bool // cur ended with its elapsed line: user and sys may follow
		cmd     string
		cmdRuns int
		started bool
	)
	for i, l := range in.lines {
		ln := i + 1
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if m := statStartedRE.FindStringSubmatch(l); m != nil {
			if tm, ok := parseStarted(m[1]); ok && !started {
				s.Created, started = tm, true
			}
			continue
		}
		if statIntervalRE.MatchString(l) {
			return in.errorf(ln, "perf stat -I (interval) output is not supported: expected the totals of a run")
		}
		if m := statHeaderRE.FindStringSubmatch(l); m != nil {
			if open {
				return in.errorf(ln, "expected 'seconds time elapsed' to end the block of line %d before the next header", cur.line)
			}
			target := m[1]
			if len(target) >= 2 && target[0] == '\'' && target[len(target)-1] == '\'' {
				target = target[1 : len(target)-1]
			}
			cur = &statBlock{line: ln, header: true, command: target, runs: 1}
			if m[2] != "" {
				n, err := strconv.Atoi(m[2])
				if err != nil || n < 1 {
					return in.errorf(ln, "bad run count %q in the header", m[2])
				}
				cur.runs = n
			}
			blocks = append(blocks, cur)
			open, ended = true, false
			continue
		}
		if m := statCmdRE.FindStringSubmatch(l); m != nil && !open {
			cmdRuns, cmd = parseStatCommand(m[1])
			cur, ended = nil, false
			continue
		}
		if t[0] == '#' {
			// Comments, and perf's derived metrics on lines of their own.
			continue
		}
		ev, kind, ok, msg := parseStatLine(l, ln)
		if msg != "" && (open || strings.Contains(l, "+-") || strings.Contains(l, "seconds time elapsed")) {
			return in.errorf(ln, "%s", msg)
		}
		if open {
			if !ok {
				return in.errorf(ln, "expected a counter line 'VALUE [UNIT] EVENT' or 'SECONDS seconds time elapsed' in the block of line %d", cur.line)
			}
			cur.add(in, s, ev, kind)
			if kind == statElapsed {
				open, ended = false, true
			}
			continue
		}
		if !ok {
			continue
		}
		if (kind == statUser || kind == statSys) && cur != nil && ended {
			cur.add(in, s, ev, kind)
			continue
		}
		// A counter quoted without its header: only lines that cannot
		// be prose count.
		if !(ev.noisy || ev.explicit || ev.unsupported || kind == statElapsed) {
			continue
		}
		if cur == nil || cur.header || cur.has(ev.name) || (kind == statElapsed && cur.elapsed != nil) {
			cur = &statBlock{line: ln, command: cmd, runs: cmdRuns}
			blocks = append(blocks, cur)
			ended = false
		}
		cur.add(in, s, ev, kind)
	}
	if open {
		return in.errorf(in.lastLine(), "unexpected end of input: expected 'seconds time elapsed' to end the block of line %d", cur.line)
	}
	statBenchmarks(in, s, blocks)
	return nil
}

// add puts one figure into the block; unsupported counters become
// warnings, since they have no value (never 0).
func (b *statBlock) add(in *input, s *Set, ev statEvent, kind int) {
	if ev.unsupported {
		if b.unsupported == nil {
			b.unsupported = map[string][]string{}
			b.unsupportedLine = ev.line
		}
		b.unsupported[ev.reason] = append(b.unsupported[ev.reason], ev.name)
		return
	}
	if ev.noisy || ev.explicit {
		b.noisy = true
	}
	switch kind {
	case statElapsed:
		b.elapsed = &ev
	case statUser:
		b.user = &ev
	case statSys:
		b.sys = &ev
	default:
		if b.has(ev.name) {
			s.Warnings = append(s.Warnings, in.warnf(ev.line, "perf stat: event %s printed twice in one block: the second is ignored", ev.name))
			return
		}
		b.events = append(b.events, ev)
	}
}

// statBenchmarks turns perf stat blocks into benchmarks of workload
// "perf-stat", one per measured command. A block of several runs becomes
// summaries (mean, standard error, n); blocks of one run each become runs.
func statBenchmarks(in *input, s *Set, blocks []*statBlock) {
	bs := newBenches(s)
	for _, b := range blocks {
		for _, reason := range []string{"not supported", "not counted"} {
			if evs := b.unsupported[reason]; len(evs) > 0 {
				s.Warnings = append(s.Warnings, in.warnf(b.unsupportedLine, "perf stat: %s <%s>: no value, skipped", strings.Join(evs, ", "), reason))
			}
		}
		all := append([]statEvent(nil), b.events...)
		for _, e := range []*statEvent{b.elapsed, b.user, b.sys} {
			if e != nil {
				all = append(all, *e)
			}
		}
		if len(all) == 0 {
			continue
		}
		summary := b.runs > 1 || b.noisy || b.variance
		n := b.runs
		if !summary {
			n = 1
		} else if n < 2 && (b.noisy || b.variance) {
			n = 0
			s.Warnings = append(s.Warnings, in.warnf(b.line,
				"perf stat: the output does not say how many runs (-r) its means are over: summaries have n = 0 (unknown)"))
		}
		params := map[string]string{}
		if b.command != "" {
			params["command"] = b.command
		}
		bench := bs.get("perf-stat", params)
		// A second block of the same command that cannot merge with the
		// first (a summary, or a run beside summaries) gets its own
		// benchmark, numbered by the block param.
		for k := 2; len(bench.Summaries) > 0 || (summary && len(bench.Runs) > 0); k++ {
			p := map[string]string{"block": strconv.Itoa(k)}
			for key, v := range params {
				p[key] = v
			}
			bench = bs.get("perf-stat", p)
		}
		for _, e := range all {
			unit := e.unit
			addMetric(bench, Metric{Name: e.name, Unit: unit, Better: CounterBetter(e.name, unit)})
		}
		if summary {
			bench.Summaries = map[string]Summary{}
			for _, e := range all {
				se := e.stderr
				if !e.explicit {
					se = e.value * e.pct / 100
				}
				if se < 0 {
					se = -se
				}
				bench.Summaries[e.name] = Summary{N: n, Mean: e.value, StdErr: se}
			}
			continue
		}
		r := addRun(bench)
		for _, e := range all {
			r.Values[e.name] = e.value
		}
		if b.elapsed != nil {
			r.WallSec = b.elapsed.value
			r.Lacks &^= FigWall
		}
		if b.user != nil {
			r.UserSec = b.user.value
			r.Lacks &^= FigUser
		}
		if b.sys != nil {
			r.SysSec = b.sys.value
			r.Lacks &^= FigSys
		}
	}
}
