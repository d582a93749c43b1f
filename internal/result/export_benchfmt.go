package result

import (
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// WriteBenchfmt writes the measured runs of sets in the Go benchmark
// format through golang.org/x/perf/benchfmt's Writer, so benchstat reads
// them (benchstat -col set FILE) and Import reads them back: the mirror
// of the benchfmt import. names, when not nil, name the sets: each name
// other than "" is the configuration key "set" of its set, ahead of its
// labels, which are configuration keys too.
//
// Each benchmark is a name, its workload capitalised as Go benchmarks are
// (BenchmarkSyscall) and then /k=v for each parameter in order; each
// measured run is a result line of one iteration; each metric is a unit
// (benchfmt's units are one word, so "mean" in ms is ms-mean), its
// direction said once, ahead of the results, in a "Unit U better=..."
// line. A unit that two metrics give different directions keeps the
// first: benchfmt allows one.
func WriteBenchfmt(w io.Writer, sets []*Set, names []string) error {
	bw := benchfmt.NewWriter(w)
	said := map[string]bool{} // tidied units, as the reader keys them
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			for _, m := range b.Metrics {
				unit := benchfmtUnit(m)
				if _, tidy := benchunit.Tidy(1, unit); !said[tidy] {
					said[tidy] = true
					better := m.Better
					if better == "" {
						better = Lower // as Metric.Worse reads it
					}
					err := bw.Write(&benchfmt.UnitMetadata{
						UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: tidy, Key: "better"},
						OrigUnit:        unit,
						Value:           string(better),
					})
					if err != nil {
						return err
					}
				}
			}
		}
	}
	for i, s := range sets {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		if err := writeBenchfmtSet(bw, s, name); err != nil {
			return err
		}
	}
	return nil
}

// writeBenchfmtSet writes the result lines of one set.
func writeBenchfmtSet(bw *benchfmt.Writer, s *Set, name string) error {
	var config []benchfmt.Config
	if name != "" {
		config = append(config, benchfmt.Config{Key: "set", Value: []byte(benchfmtValue(name)), File: true})
	}
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if key := benchfmtKey(k); key != "set" || name == "" {
			config = append(config, benchfmt.Config{Key: key, Value: []byte(benchfmtValue(s.Labels[k])), File: true})
		}
	}
	for _, b := range s.Benchmarks {
		bname := benchfmt.Name(benchfmtName(b))
		for _, r := range b.Measured() {
			res := &benchfmt.Result{Config: config, Name: bname, Iters: 1}
			for _, m := range b.Metrics {
				if v, ok := r.Values[m.Name]; ok {
					res.Values = append(res.Values, benchfmt.Value{Value: v, Unit: benchfmtUnit(m)})
				}
			}
			if len(res.Values) == 0 {
				continue
			}
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchfmtName is a benchmark's name without "Benchmark": the workload,
// capitalised, then /k=v per parameter, sorted, blanks made underscores.
func benchfmtName(b *Benchmark) string {
	name := b.Workload
	if r, n := utf8.DecodeRuneInString(name); n > 0 {
		name = string(unicode.ToUpper(r)) + name[n:]
	}
	keys := make([]string, 0, len(b.Params))
	for k := range b.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name += "/" + k + "=" + b.Params[k]
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
}

// benchfmtUnit names a metric as a benchfmt unit, which must be one word:
// the name when it is a unit already (calls/s), else unit-name (ms-mean).
func benchfmtUnit(m Metric) string {
	u := m.Name
	if !strings.Contains(m.Name, "/") && m.Unit != "" {
		u = m.Unit + "-" + m.Name
	}
	return strings.ReplaceAll(u, " ", "-")
}

// benchfmtKey makes a label name a configuration key, which the reader
// takes only when it is one word in lower case.
func benchfmtKey(k string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == ':' {
			return '-'
		}
		return unicode.ToLower(r)
	}, k)
}

// benchfmtValue keeps a configuration value on its line.
func benchfmtValue(v string) string { return strings.ReplaceAll(v, "\n", " ") }
