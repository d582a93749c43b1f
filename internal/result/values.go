package result

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// MaxMagnitude is the largest figure kdelta takes for a measurement. No
// time, count or rate comes near it, and figures below it can be summed
// and squared (a mean, a variance) without reaching infinity; 1e308 in a
// file is a typing error or an attack, never a measurement.
const MaxMagnitude = 1e100

// nonNegative tells whether a figure in unit can never be below zero: a
// time, a count or a rate. A percentage (a change) and a figure without a
// unit may be.
func nonNegative(unit string) bool {
	if _, ok := timeUnits[canonicalUnit(unit)]; ok {
		return true
	}
	switch unit {
	case "count", "calls", "cycles", "ops", "bytes", "pages/fault":
		return true
	}
	return strings.Contains(unit, "/") && !strings.Contains(unit, "%")
}

// badValue says what is wrong with figure v of a metric in unit, or "".
// An import (imported) refuses every negative figure but a percentage:
// the tools it reads print times, counts and rates, whatever unit a
// table's header names.
func badValue(v float64, unit string, imported bool) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "is not a finite number"
	case math.Abs(v) > MaxMagnitude:
		return fmt.Sprintf("is beyond %g, which no measurement reaches", MaxMagnitude)
	case v < 0 && nonNegative(unit):
		return fmt.Sprintf("is negative, which a figure in %s never is", unit)
	case v < 0 && imported && !strings.Contains(unit, "%") && !strings.Contains(unit, "percent"):
		return "is negative, which a measured time, count or rate never is"
	}
	return ""
}

// A valueFault is the first figure of a set that no measurement gives.
type valueFault struct {
	bench    int
	workload string
	where    string
	metric   string
	v        float64
	reason   string
}

func (f *valueFault) Error() string {
	return fmt.Sprintf("benchmark %d (%s): %s %s %s", f.bench, f.workload, f.where, strconv.FormatFloat(f.v, 'g', 6, 64), f.reason)
}

// checkValues finds the first figure of s that no measurement gives: not
// finite, beyond MaxMagnitude, or a negative time, count or rate. Its
// metrics are visited in name order so the answer does not depend on a
// map's order.
func checkValues(s *Set, imported bool) *valueFault {
	for i, b := range s.Benchmarks {
		if b == nil {
			continue
		}
		units := map[string]string{}
		for _, m := range b.Metrics {
			units[m.Name] = m.Unit
		}
		for j, r := range b.Runs {
			if r == nil {
				continue
			}
			names := make([]string, 0, len(r.Values))
			for name := range r.Values {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				v := r.Values[name]
				if why := badValue(v, units[name], imported); why != "" {
					return &valueFault{i + 1, b.Workload, fmt.Sprintf("run %d: %s", j+1, name), name, v, why}
				}
			}
			if l := r.Latency; l != nil {
				for _, v := range append([]float64{l.Mean, l.Min, l.P50, l.P90, l.P99, l.Max}, l.Raw...) {
					if why := badValue(v, l.Unit, imported); why != "" {
						return &valueFault{i + 1, b.Workload, fmt.Sprintf("run %d: a latency", j+1), "", v, why}
					}
				}
			}
		}
		names := make([]string, 0, len(b.Summaries))
		for name := range b.Summaries {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			sum := b.Summaries[name]
			for _, v := range []float64{sum.Mean, sum.StdErr} {
				if why := badValue(v, units[name], imported); why != "" {
					return &valueFault{i + 1, b.Workload, fmt.Sprintf("the summary of %s:", name), name, v, why}
				}
			}
		}
	}
	return nil
}

// signedNumRE is a number standing alone (after the start of a line, a
// space or a table's bar), as a measurement is written.
var signedNumRE = regexp.MustCompile(`(?:^|[\s|(,:=])([-+]?\d[\d,]*(?:\.\d*)?(?:[eE][-+]?\d+)?)`)

// lineOf returns the 1-based line of the first number in the input that
// has what f found wrong (negative, or too large), on a line that names
// f's metric if there is one, or 0.
func (in *input) lineOf(f *valueFault) int {
	if f.metric != "" {
		if l := in.numberLine(f, f.metric); l > 0 {
			return l
		}
	}
	return in.numberLine(f, "")
}

func (in *input) numberLine(f *valueFault, name string) int {
	for i, l := range in.lines {
		if !strings.Contains(l, name) {
			continue
		}
		for _, m := range signedNumRE.FindAllStringSubmatch(l, -1) {
			x, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
			if err != nil && !math.IsInf(x, 0) {
				continue
			}
			if f.v < 0 && x < 0 || math.Abs(f.v) > MaxMagnitude && math.Abs(x) > MaxMagnitude/1e12 {
				return i + 1
			}
		}
	}
	return 0
}
