// Package report renders result sets and comparisons as text that pastes
// into an email: plain ASCII, at most 100 columns.
package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kdelta/kdelta/internal/stats"
)

// Num formats v for a table: about four significant digits, thousands
// separated, never in exponent notation for the ranges benchmarks produce.
// It is stats.Num, the one number formatter, which the warnings of stats
// use too.
func Num(v float64) string { return stats.Num(v) }

// WithUnit appends a unit to a formatted number, unless the unit merely
// repeats the metric's name.
func WithUnit(v float64, unit string) string {
	if unit == "" {
		return Num(v)
	}
	return Num(v) + " " + unit
}

// LatNum formats a latency as seed mail 002's tables do: three decimals
// ("10.088 ms") for values from 0.001 to 100,000.
func LatNum(v float64, unit string) string {
	if a := math.Abs(v); a >= 0.001 && a < 100000 {
		s := strconv.FormatFloat(v, 'f', 3, 64)
		if unit != "" {
			s += " " + unit
		}
		return s
	}
	return WithUnit(v, unit)
}

// PValue is a p-value as every report prints it: "p=0.042", or
// "p<0.001" below a thousandth.
func PValue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// Interval is a confidence interval of a relative change, "[-1.2%, +3.4%]".
func Interval(ci [2]float64) string {
	return "[" + Pct(ci[0]) + ", " + Pct(ci[1]) + "]"
}
