// Package report renders result sets and comparisons as text that pastes
// into an email: plain ASCII, at most 100 columns.
package report

import (
	"math"
	"strconv"
	"strings"
)

// Num formats v for a table: about four significant digits, thousands
// separated, never in exponent notation for the ranges benchmarks produce.
func Num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if math.IsInf(v, 0) {
		return "inf"
	}
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return commas(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.001 || a == 0:
		return strconv.FormatFloat(v, 'f', 3, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func commas(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

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
