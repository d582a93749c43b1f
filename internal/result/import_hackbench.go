package result

import (
	"regexp"
	"strconv"
)

// rt-tests hackbench prints, per run,
//
//	Running in process mode with 1 groups using 40 file descriptors each (== 40 tasks)
//	Each sender will pass 10 messages of 100 bytes
//	Time: 0.068
//
// The file descriptors are the senders and receivers of a group together,
// twice hackbench's -f. Runs concatenated in one file are runs of one
// benchmark per set of parameters, named as kdelta's messaging workload
// names them (groups, fds, loops, size, mode). The original hackbench.c
// prints the Time line alone; such runs have no parameters.

var (
	hackHeaderRE = regexp.MustCompile(`^\s*Running in (process|threaded) mode with (\d+) groups using (\d+) file descriptors each`)
	hackPassRE   = regexp.MustCompile(`^\s*Each sender will pass (\d+) messages of (\d+) bytes`)
	hackTimeRE   = regexp.MustCompile(`^\s*Time:\s*(` + numPat + `)\s*$`)
)

func detectHackbench(in *input) int {
	if l := in.firstMatch(hackHeaderRE); l > 0 {
		return l
	}
	return in.firstMatch(hackTimeRE)
}

func readHackbench(in *input, s *Set) error {
	bs := newBenches(s)
	params := map[string]string{}
	header := 0 // line of a header still waiting for its Time
	for i, l := range in.lines {
		ln := i + 1
		if m := hackHeaderRE.FindStringSubmatch(l); m != nil {
			if header > 0 {
				return in.errorf(ln, "expected 'Time: S' for the run of line %d before the next run", header)
			}
			fds, _ := strconv.Atoi(m[3])
			mode := "process"
			if m[1] == "threaded" {
				mode = "thread"
			}
			params = map[string]string{"groups": m[2], "fds": strconv.Itoa(fds / 2), "mode": mode}
			header = ln
			continue
		}
		if m := hackPassRE.FindStringSubmatch(l); m != nil {
			params["loops"], params["size"] = m[1], m[2]
			continue
		}
		m := hackTimeRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v, err := parseNum(m[1])
		if err != nil {
			return in.errorf(ln, "Time: %v", err)
		}
		p := map[string]string{}
		for k, x := range params {
			p[k] = x
		}
		b := bs.get("hackbench", p)
		addMetric(b, Metric{Name: "time", Unit: "s", Better: Lower, Doc: "hackbench Time"})
		r := addRun(b)
		r.Values["time"] = v
		header = 0
	}
	if header > 0 {
		return in.errorf(in.lastLine(), "unexpected end of input: expected 'Time: S' for the run of line %d", header)
	}
	if len(s.Benchmarks) == 0 {
		return in.errorf(in.firstLine(), "expected hackbench output: 'Running in process mode with ...' and 'Time: S'")
	}
	return nil
}
