package mail

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// The 0-day bot ("kernel test robot") reports a comparison of two
// commits as a table with a %stddev and a %change column: each row a
// metric (hackbench.throughput, perf-stat.i.cpi, ...), the base commit's
// mean and spread, the change, the other commit's mean and spread. Above
// it the testcase and its parameters; below it a reproduce section for
// its own harness (lkp-tests).

var (
	lkpHeaderRE  = regexp.MustCompile(`%stddev\s+%change\s+%stddev`)
	lkpNum       = `(\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?)`
	lkpRowRE     = regexp.MustCompile(`^\s*` + lkpNum + `\s*(?:±\s*(\d+(?:\.\d+)?)%)?\s+(?:([-+]?\d+(?:\.\d+)?)%\s+)?` + lkpNum + `\s*(?:±\s*(\d+(?:\.\d+)?)%)?\s+([A-Za-z_][\w.:\-/%]*)\s*$`)
	lkpCommitsRE = regexp.MustCompile(`^\s*([0-9a-f]{7,40})\s+([0-9a-f]{7,40})\s*$`)
	lkpTestRE    = regexp.MustCompile(`^\s*in testcase:\s*(\S+)`)
	lkpParamRE   = regexp.MustCompile(`^\s+([a-z_]+):\s*(\S.*?)\s*$`)
)

// lkp reads a 0-day comparison table at one level, and returns the lines
// it consumed.
func (s *Section) lkp(lines []Line, level int) map[int]bool {
	var at []Line
	for _, l := range lines {
		if l.Level == level {
			at = append(at, l)
		}
	}
	used := map[int]bool{}
	head := -1
	for i, l := range at {
		if lkpHeaderRE.MatchString(l.Text) {
			head = i
			break
		}
	}
	if head < 0 {
		return used
	}
	a, b := "base", "patched"
	for i := head - 1; i >= 0 && i >= head-6; i-- {
		if m := lkpCommitsRE.FindStringSubmatch(at[i].Text); m != nil {
			a, b = m[1], m[2]
			break
		}
	}
	// The "commit:" list above the table names the two commits too.
	for i := head - 1; i >= 0 && i >= head-8; i-- {
		if strings.TrimSpace(at[i].Text) == "commit:" {
			for k := i; k < head; k++ {
				used[at[k].N] = true
			}
			break
		}
	}
	// The testcase and its parameters, above the table.
	test := ""
	params := map[string]string{}
	var order []string
	for i := 0; i < head; i++ {
		if m := lkpTestRE.FindStringSubmatch(at[i].Text); m != nil {
			test = m[1]
			for j := i + 1; j < head; j++ {
				if strings.Contains(at[j].Text, "with following parameters") {
					for k := j + 1; k < head; k++ {
						if strings.TrimSpace(at[k].Text) == "" && len(order) == 0 {
							continue
						}
						pm := lkpParamRE.FindStringSubmatch(at[k].Text)
						if pm == nil {
							break
						}
						params[pm[1]] = pm[2]
						order = append(order, pm[1])
					}
					break
				}
			}
			s.Commands = append(s.Commands, &Command{Line: at[i].N, Text: "0-day testcase " + test + " " + strings.Join(kvs(params, order), " "), Prose: true, Map: lkpMap(test, params)})
			break
		}
	}
	name := "lkp"
	if test != "" {
		name = "lkp-" + test
	}
	mk := func(v string) (*result.Set, *result.Benchmark) {
		st := &result.Set{Schema: result.Schema, Tool: "mail 0-day", Labels: map[string]string{result.VariantParam: v}, Complete: true, Created: time.Unix(0, 0).UTC()}
		bb := &result.Benchmark{Workload: name, Params: map[string]string{}, Summaries: map[string]result.Summary{}}
		st.Benchmarks = []*result.Benchmark{bb}
		return st, bb
	}
	sa, ba := mk(a)
	sb, bbn := mk(b)
	first, last := 0, 0
	for i := head + 1; i < len(at); i++ {
		t := at[i].Text
		if strings.TrimSpace(t) == "" {
			if first > 0 {
				break
			}
			continue
		}
		m := lkpRowRE.FindStringSubmatch(t)
		if m == nil {
			if first == 0 {
				// The rules and bars between the header and the rows.
				used[at[i].N] = true
				continue
			}
			break
		}
		used[at[i].N] = true
		if first == 0 {
			first = at[i].N
		}
		last = at[i].N
		va, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		vb, _ := strconv.ParseFloat(strings.ReplaceAll(m[4], ",", ""), 64)
		metric := m[6]
		better := lkpBetter(metric)
		met := result.Metric{Name: metric, Better: better}
		ba.Metrics = append(ba.Metrics, met)
		bbn.Metrics = append(bbn.Metrics, met)
		ba.Summaries[metric] = result.Summary{Mean: va, StdErr: relSpread(va, m[2])}
		bbn.Summaries[metric] = result.Summary{Mean: vb, StdErr: relSpread(vb, m[5])}
		if better == result.Neither {
			sa.Warnings = append(sa.Warnings, "0-day: "+metric+": no known direction: the change is said, not judged better or worse")
		}
		if m[3] != "" {
			pct, _ := strconv.ParseFloat(m[3], 64)
			c := &Claim{Line: at[i].N, Kind: ClaimChange, Text: m[3] + "% " + metric, Stated: pct, Decimals: decimals(m[3]), From: va, To: vb}
			ch := 100 * (vb/va - 1)
			if va == 0 {
				ch = math.NaN()
			}
			c.Checks = append(c.Checks, c.check(a+" -> "+b, ch, false, "a spread without its n: figures, no test"))
			c.Verdict = c.verdict()
			s.Claims = append(s.Claims, c)
		}
	}
	used[at[head].N] = true
	if first > 0 {
		s.Outputs = append(s.Outputs, &Output{Line: first, End: last, Format: "0-day comparison", Sets: []*result.Set{sa, sb}})
	}
	return used
}

func decimals(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// relSpread turns a spread in percent of v into an absolute one; 0-day
// does not say over how many runs, so it is kept as the summary's spread
// with n unknown.
func relSpread(v float64, pct string) float64 {
	if pct == "" {
		return 0
	}
	p, _ := strconv.ParseFloat(pct, 64)
	return v * p / 100
}

// lkpBetter is the direction of a 0-day metric where its name says it.
func lkpBetter(metric string) result.Better {
	l := strings.ToLower(metric)
	switch {
	case strings.HasSuffix(l, "throughput"), strings.HasSuffix(l, ".ops"), strings.HasSuffix(l, "per_sec"), strings.HasSuffix(l, ".score"):
		return result.Higher
	case strings.HasSuffix(l, ".time"), strings.HasSuffix(l, "_time"), strings.HasSuffix(l, "latency"), strings.HasSuffix(l, ".cpi"):
		return result.Lower
	}
	return result.Neither
}

func kvs(m map[string]string, order []string) []string {
	var out []string
	for _, k := range order {
		out = append(out, k+"="+m[k])
	}
	return out
}

// lkpMap maps a 0-day testcase onto a kdelta workload.
func lkpMap(test string, p map[string]string) Mapping {
	var m Mapping
	switch test {
	case "hackbench":
		ps := params{}
		switch p["mode"] {
		case "threads", "thread":
			ps.add("mode", "thread")
		case "process":
			ps.add("mode", "process")
		}
		if p["ipc"] == "pipe" || p["ipc"] == "socket" {
			ps.add("ipc", p["ipc"])
		}
		m.Spec = "messaging" + ps.spec()
		if n := p["nr_threads"]; n != "" {
			m.Notes = append(m.Notes, "nr_threads "+n+": lkp sizes hackbench's groups from the machine's CPUs; give groups= for this one")
		}
		if it := p["iterations"]; it != "" {
			m.Notes = append(m.Notes, "iterations "+it+": lkp's repeats of hackbench inside one job")
		}
	default:
		m.Cannot = "no kdelta workload for the 0-day testcase " + test + " (lkp-tests runs it)"
	}
	m.Notes = append(m.Notes, "the report's reproduce section drives lkp-tests (bin/lkp run job.yaml), not kdelta")
	return m
}
