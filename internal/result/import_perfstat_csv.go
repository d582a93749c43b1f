package result

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// perf stat -x SEP writes one record per event:
//
//	VALUE,UNIT,EVENT,RUN-TIME,PCNT-RUNNING,METRIC-VALUE,METRIC-UNIT
//	48.53,msec,task-clock,7.56%,48525068,100.00,0.637,CPUs utilized
//
// With -r a VARIANCE field ("7.56%", the standard error relative to the
// mean) follows EVENT. perf stat -j writes the same fields as one JSON
// object per line. Neither says how many runs a mean is over, nor the
// elapsed time. A block ends where an event comes round again.

var statCSVValueRE = regexp.MustCompile(`^(?:` + numPat + `|<not supported>|<not counted>)$`)

// csvSeps are the separators perf stat -x is given in practice.
var csvSeps = []string{",", ";"}

// statCSVRecord splits l into a record's fields when it is one.
func statCSVRecord(l, sep string) ([]string, bool) {
	f := strings.Split(l, sep)
	if len(f) < 3 {
		return nil, false
	}
	if !statCSVValueRE.MatchString(strings.TrimSpace(f[0])) {
		return nil, false
	}
	ev := strings.TrimSpace(f[2])
	if ev == "" || strings.ContainsAny(ev, " \t") {
		return nil, false
	}
	return f, true
}

// csvSep returns the separator that makes records of the most lines.
func csvSep(in *input) (sep string, first int) {
	best := 0
	for _, s := range csvSeps {
		n, fl := 0, 0
		for i, l := range in.lines {
			if _, ok := statCSVRecord(l, s); ok {
				n++
				if fl == 0 {
					fl = i + 1
				}
			}
		}
		if n > best {
			best, sep, first = n, s, fl
		}
	}
	return sep, first
}

func detectPerfStatCSV(in *input) int {
	_, first := csvSep(in)
	return first
}

func readPerfStatCSV(in *input, s *Set) error {
	sep, _ := csvSep(in)
	if sep == "" {
		sep = ","
	}
	var (
		blocks []*statBlock
		cur    *statBlock
	)
	for i, l := range in.lines {
		ln := i + 1
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if m := statStartedRE.FindStringSubmatch(l); m != nil {
			if tm, ok := parseStarted(m[1]); ok {
				s.Created = tm
			}
			continue
		}
		if t[0] == '#' || strings.Count(l, sep) < 2 {
			// Comments, and the measured command's own output.
			continue
		}
		f, ok := statCSVRecord(l, sep)
		if !ok {
			return in.errorf(ln, "expected a perf stat -x%s record VALUE%sUNIT%sEVENT%s... (interval -I and per-CPU -A output are not supported)", sep, sep, sep, sep)
		}
		ev := statEvent{name: strings.TrimSpace(f[2]), unit: strings.TrimSpace(f[1]), line: ln}
		v := strings.TrimSpace(f[0])
		if v == "<not supported>" || v == "<not counted>" {
			ev.unsupported, ev.reason = true, strings.Trim(v, "<>")
		} else {
			x, err := parseNum(v)
			if err != nil {
				return in.errorf(ln, "counter value: %v", err)
			}
			ev.value = x
		}
		variance := len(f) > 3 && strings.HasSuffix(strings.TrimSpace(f[3]), "%")
		if variance {
			p, err := parseNum(strings.TrimSuffix(strings.TrimSpace(f[3]), "%"))
			if err != nil {
				return in.errorf(ln, "variance: %v", err)
			}
			ev.pct = p
		}
		if cur == nil || cur.has(ev.name) {
			cur = &statBlock{line: ln}
			blocks = append(blocks, cur)
		}
		cur.variance = cur.variance || variance
		cur.add(in, s, ev, statCounter)
	}
	statBenchmarks(in, s, blocks)
	return nil
}

// statJSONKeys are keys perf stat -j writes only for per-CPU, per-core or
// interval output, which has no single total to import.
var statJSONKeys = []string{"interval", "cpu", "core", "socket", "die", "node", "thread", "cgroup"}

func detectPerfStatJSON(in *input) int {
	for i, l := range in.lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "{") && strings.Contains(t, `"counter-value"`) && strings.Contains(t, `"event"`) {
			return i + 1
		}
	}
	return 0
}

func readPerfStatJSON(in *input, s *Set) error {
	var (
		blocks []*statBlock
		cur    *statBlock
	)
	for i, l := range in.lines {
		ln := i + 1
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "{") {
			// The measured command's own output.
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(t), &rec); err != nil {
			return in.errorf(ln, "expected a perf stat -j JSON object: %v", err)
		}
		for _, k := range statJSONKeys {
			if _, ok := rec[k]; ok {
				return in.errorf(ln, "perf stat -j output with %q is not supported: expected the totals of a run (no -I, -A or --per-*)", k)
			}
		}
		evName, ok := rec["event"].(string)
		if !ok {
			if _, metric := rec["metric-value"]; metric {
				// A derived metric on a line of its own (newer perf).
				continue
			}
			return in.errorf(ln, `expected a perf stat -j object with "event" and "counter-value"`)
		}
		ev := statEvent{name: strings.Join(strings.Fields(evName), "-"), line: ln}
		if ev.name == "" {
			return in.errorf(ln, `empty "event"`)
		}
		if u, ok := rec["unit"].(string); ok {
			ev.unit = strings.TrimSpace(u)
		}
		switch v := rec["counter-value"].(type) {
		case string:
			if v == "<not supported>" || v == "<not counted>" {
				ev.unsupported, ev.reason = true, strings.Trim(v, "<>")
				break
			}
			x, err := parseNum(v)
			if err != nil {
				return in.errorf(ln, "counter-value: %v", err)
			}
			ev.value = x
		case float64:
			ev.value = v
		default:
			return in.errorf(ln, `expected "counter-value" as a number or a string, found %s`, jsonKind(rec["counter-value"]))
		}
		var variance bool
		if vv, ok := rec["variance"]; ok {
			p, ok := vv.(float64)
			if !ok {
				return in.errorf(ln, `expected "variance" as a number, found %s`, jsonKind(vv))
			}
			ev.pct, variance = p, true
		}
		if cur == nil || cur.has(ev.name) {
			cur = &statBlock{line: ln}
			blocks = append(blocks, cur)
		}
		cur.variance = cur.variance || variance
		cur.add(in, s, ev, statCounter)
	}
	statBenchmarks(in, s, blocks)
	return nil
}

// jsonKind names the JSON type of v for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
