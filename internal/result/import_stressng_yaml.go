package result

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// stress-ng --yaml FILE writes one document per run:
//
//	---
//	system-info:
//	      stress-ng-version: 0.15.06
//	      epoch-secs: 1796025347
//	      ...
//	metrics:
//	    - stressor: kill
//	      bogo-ops: 2000
//	      bogo-ops-per-second-real-time: 27196.623039
//	      ...
//	      kill-calls-per-sec: 465800.877339
//	...
//
// The layout is fixed by stress-ng's writer, so a line reader suffices: a
// section name at column 0, "key: value" lines inside it, and "- stressor:"
// starting each item of metrics. Documents concatenated in one file are
// runs, as with the text output.

var (
	yamlSectionRE  = regexp.MustCompile(`^([A-Za-z][\w-]*):\s*$`)
	yamlKVRE       = regexp.MustCompile(`^\s+([A-Za-z][\w-]*):\s*(.*?)\s*$`)
	yamlStressorRE = regexp.MustCompile(`^\s*-\s+stressor:\s*(.*?)\s*$`)
	yamlSigRE      = regexp.MustCompile(`^\s*-\s+stressor:\s*\S`)
)

// yamlKnown maps the metrics keys every stressor has to kdelta's names.
var yamlKnown = map[string]Metric{
	"bogo-ops-per-second-real-time":    sngBogoRate,
	"bogo-ops-per-second-usr-sys-time": sngBogoCPU,
	"wall-clock-time":                  sngReal,
	"user-time":                        sngUsr,
	"system-time":                      sngSys,
}

func detectStressNGYAML(in *input) int { return in.firstMatch(yamlSigRE) }

// yamlValue unquotes a scalar the way stress-ng quotes them.
func yamlValue(v string) string {
	if len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'' || v[0] == '"' && v[len(v)-1] == '"') {
		return v[1 : len(v)-1]
	}
	return v
}

// A yamlDoc is one document: its system-info and its stressors' metrics.
type yamlDoc struct {
	line  int
	info  map[string]string
	items []*yamlItem
}

type yamlItem struct {
	line     int
	stressor string
	kv       [][3]string // key, value, line
}

func readStressNGYAML(in *input, s *Set) error {
	var (
		docs    []*yamlDoc
		doc     *yamlDoc
		item    *yamlItem
		section string
		open    int // line of an unfinished "---"
	)
	newDoc := func(ln int) {
		doc = &yamlDoc{line: ln, info: map[string]string{}}
		docs = append(docs, doc)
		item, section = nil, ""
	}
	for i, l := range in.lines {
		ln := i + 1
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			continue
		case l == "---" || strings.HasPrefix(l, "--- "):
			if open > 0 {
				return in.errorf(ln, "expected '...' to end the YAML document of line %d before the next", open)
			}
			newDoc(ln)
			open = ln
			continue
		case l == "...":
			if open == 0 {
				return in.errorf(ln, "'...' ends a YAML document that did not start with '---'")
			}
			open = 0
			doc = nil
			continue
		}
		if doc == nil {
			newDoc(ln)
		}
		if m := yamlSectionRE.FindStringSubmatch(l); m != nil {
			section, item = m[1], nil
			continue
		}
		switch section {
		case "system-info":
			if m := yamlKVRE.FindStringSubmatch(l); m != nil {
				doc.info[m[1]] = yamlValue(m[2])
			}
		case "metrics":
			if m := yamlStressorRE.FindStringSubmatch(l); m != nil {
				name := yamlValue(m[1])
				if name == "" || strings.ContainsAny(name, " \t") {
					return in.errorf(ln, "expected a stressor name after '- stressor:'")
				}
				item = &yamlItem{line: ln, stressor: name}
				doc.items = append(doc.items, item)
				continue
			}
			m := yamlKVRE.FindStringSubmatch(l)
			if m == nil {
				// A shape later versions may add; the document's end
				// still tells a truncated file.
				continue
			}
			if item == nil {
				return in.errorf(ln, "expected '- stressor: NAME' before %s", m[1])
			}
			item.kv = append(item.kv, [3]string{m[1], yamlValue(m[2]), strconv.Itoa(ln)})
		}
	}
	if open > 0 {
		return in.errorf(in.lastLine(), "unexpected end of input: expected '...' to end the YAML document of line %d", open)
	}
	bs := newBenches(s)
	guessed := map[string]bool{}
	first := true
	for _, d := range docs {
		start, hasStart := yamlTime(d.info)
		if first && len(d.items) > 0 {
			first = false
			if hasStart {
				s.Created = start
			}
			yamlLabels(s, d.info)
		}
		for _, it := range d.items {
			b := bs.get("stress-ng-"+it.stressor, nil)
			for _, m := range []Metric{sngBogoRate, sngBogoCPU, sngReal, sngUsr, sngSys} {
				addMetric(b, m)
			}
			r := addRun(b)
			r.Counts = map[string]float64{}
			r.Info = map[string]string{}
			if hasStart {
				r.Start = start
			}
			for _, k := range yamlInfo {
				if v := d.info[k]; v != "" {
					r.Info[k] = v
				}
			}
			for _, kv := range it.kv {
				key, val := kv[0], kv[1]
				ln, _ := strconv.Atoi(kv[2])
				v, err := parseNum(val)
				if err != nil {
					// Non-numeric keys (none today) carry no metric.
					if _, known := yamlKnown[key]; known || key == "bogo-ops" || key == "max-rss" {
						return in.errorf(ln, "%s: %v", key, err)
					}
					continue
				}
				switch key {
				case "bogo-ops":
					r.Ops, r.Counts["bogo-ops"] = v, v
					continue
				case "max-rss":
					r.MaxRSSKiB = int64(v)
					r.Lacks &^= FigMaxRSS
					continue
				case "cpu-usage-per-instance":
					r.Info["cpu_used_pct"] = val
					continue
				}
				met, ok := yamlKnown[key]
				if !ok {
					var guess bool
					met, guess = sngMisc(strings.ReplaceAll(key, "-", " "))
					addMetric(b, met)
					if guess && !guessed[met.Name] {
						guessed[met.Name] = true
						s.Warnings = append(s.Warnings, in.warnf(ln, "stress-ng: metric %q has no direction in its name: taken as higher is better", met.Name))
					}
				}
				r.Values[met.Name] = v
				switch met.Name {
				case sngReal.Name:
					r.WallSec = v
					r.Lacks &^= FigWall
				case sngUsr.Name:
					r.UserSec = v
					r.Lacks &^= FigUser
				case sngSys.Name:
					r.SysSec = v
					r.Lacks &^= FigSys
				}
			}
		}
	}
	if len(s.Benchmarks) == 0 {
		return in.errorf(in.firstLine(), "expected stress-ng --yaml output: 'metrics:' with '- stressor: NAME' items")
	}
	return nil
}

// yamlTime is when the run started: epoch-secs, else the local date and
// time stress-ng wrote (its date uses colons: 2026:11:30).
func yamlTime(info map[string]string) (time.Time, bool) {
	if e, err := strconv.ParseInt(info["epoch-secs"], 10, 64); err == nil && e > 0 {
		return time.Unix(e, 0).UTC(), true
	}
	d := strings.ReplaceAll(info["date-yyyy-mm-dd"], ":", "-")
	if t, err := time.ParseInLocation("2006-01-02 15:04:05", d+" "+info["time-hh-mm-ss"], time.Local); err == nil {
		return t.UTC(), true
	}
	return time.Time{}, false
}

// yamlLabels keeps what system-info tells of the machine: the host and
// kernel labels kdelta's own runs carry, and in each run's Info the
// stress-ng version, uname -v and -m and the CPU count. It does not make an
// environment fingerprint of them: a fingerprint with most facts blank
// would read as a machine whose facts are blank.
func yamlLabels(s *Set, info map[string]string) {
	if v := info["hostname"]; v != "" {
		s.Labels["host"] = v
	}
	if v := info["release"]; v != "" {
		s.Labels["kernel"] = v
	}
}

// yamlInfo are the system-info keys each run keeps in its Info.
var yamlInfo = []string{"stress-ng-version", "version", "machine", "cpus", "cpus-online"}
