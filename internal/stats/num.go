package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Num formats v as kdelta prints every figure: about four significant
// digits, thousands separated, never in exponent notation for the ranges
// benchmarks produce. It is the one number formatter: it lives here, below
// every package that prints figures, so that this package's warnings
// ("run 6 (130,600)") and report's tables print a number alike; report.Num
// is this function.
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
		return WholeNum(v)
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

// WholeNum formats v rounded to a whole number with thousands separators,
// as perf prints counts ("3,080,508"); Num does the same from 1000 up.
func WholeNum(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
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

// CheckAlpha refuses a significance level outside (0, 1): a flag that
// says --alpha 0 means it, and is not quietly read as the default.
func CheckAlpha(a float64) error {
	if !(a > 0 && a < 1) {
		return fmt.Errorf("--alpha %v is not in (0, 1)", a)
	}
	return nil
}

// ParsePercent reads "1%", "1" (percent) or "0.5%" as a fraction.
func ParsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v > 0 && v < 1000) {
		return 0, fmt.Errorf("bad value %q (a positive percentage such as 1%%)", s)
	}
	return v / 100, nil
}
