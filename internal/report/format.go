package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CheckFormat returns nil when format is one of known, else the error a
// command's --format flag reports: the format and the ones there are.
func CheckFormat(format string, known []string) error {
	if slices.Contains(known, format) {
		return nil
	}
	return fmt.Errorf("--format: unknown format %q (one of %s)", format, strings.Join(known, ", "))
}

// OrDash is s, or "-" when s is empty, so that an empty cell of a table
// still shows.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// dataNum formats a float for CSV and JSON, which programs read: twelve
// significant digits, and "" when it is not finite. Twelve, not the
// shortest exact form, because the last bits differ between architectures
// (ppc64le fuses multiply-adds) while the figures do not.
func dataNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 12, 64)
}
