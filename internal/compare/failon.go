package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/stats"
)

// FailOns are the conditions --fail-on takes.
var FailOns = []string{"regression"}

// CheckFailOn returns nil when cond is "" (no --fail-on) or one of
// FailOns, else the error --fail-on reports, before anything runs.
func CheckFailOn(cond string) error {
	if cond == "" || slices.Contains(FailOns, cond) {
		return nil
	}
	return fmt.Errorf("--fail-on: unknown value %q (%s)", cond, strings.Join(FailOns, ", "))
}

// FailOn is --fail-on, the one rule of kdelta compare and kdelta ab: with
// cond "regression", an error naming the first of regressed (as Regressed
// lists them, and kdelta ab's verdicts at each knob point after them); nil
// when nothing regressed or cond is "". The command exits 1 on it.
func FailOn(cond string, regressed []string) error {
	if cond != "regression" || len(regressed) == 0 {
		return nil
	}
	return fmt.Errorf("regression: %s", regressed[0])
}

// Regressed lists the metrics whose verdict is regressed, row by row and
// set by set: each "WORKLOAD METRIC", led by the set's name when named is
// set (kdelta ab names the variant; kdelta compare, of two files, does
// not).
func (r *Result) Regressed(named bool) []string {
	var out []string
	for _, row := range r.Rows {
		for k, v := range row.Vs {
			if v.Verdict != stats.Regressed {
				continue
			}
			s := row.Workload + " " + row.Metric.Name
			if named {
				s = r.Names[k+1] + " " + s
			}
			out = append(out, s)
		}
	}
	return out
}
