package report

import (
	"strconv"
	"strings"
	"unicode"
)

// Printable is s as a terminal may be given it: a string holding a control
// character or another rune that does not print (a newline, an ANSI
// escape sequence, a bell) is written with Go's escapes (\n, \x1b, \a),
// so a label from a store or a file that kdelta did not write cannot
// split a row of results ls or reach the terminal raw (issue 35 point 9).
// Any other string is returned as it is.
func Printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// printableLabels is labels with each key and value made Printable.
func printableLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[Printable(k)] = Printable(v)
	}
	return out
}
