package mail

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Some mail clients group the digits of a large number with a space that
// is not one: a no-break space (U+00A0), a narrow no-break space
// (U+202F, French typography's), a thin space (U+2009), a figure space
// (U+2007) or an en space (U+2002): "1 234 567". Such a number is one
// number; the space is not a column's edge. A grouping space joins the
// groups ("1234567"); every other such space becomes a plain one, so
// that "9.75 ms" reads as a figure and its unit. A comma stays what the
// readers make of it: "1 234,5" becomes "1234,5", a decimal comma, which
// they refuse as before.

const oddSpaces = "\u00a0\u202f\u2009\u2007\u2002"

// groupedRE matches digits followed by groups of three, each after an
// odd space; whether a digit follows the last group is checked apart.
var groupedRE = regexp.MustCompile(`\d+(?:[` + oddSpaces + `]\d{3})+`)

var oddSpaceReplacer = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ", "\u2007", " ", "\u2002", " ")

// plainSpaces joins the digit groups of a line and turns its other odd
// spaces into plain ones.
func plainSpaces(l string) string {
	if !strings.ContainsAny(l, oddSpaces) {
		return l
	}
	var b strings.Builder
	last := 0
	for _, loc := range groupedRE.FindAllStringIndex(l, -1) {
		m := l[loc[0]:loc[1]]
		first := strings.IndexAny(m, oddSpaces)
		if r, _ := utf8.DecodeRuneInString(l[loc[1]:]); loc[1] < len(l) && r >= '0' && r <= '9' || first > 3 {
			// "1 2345" or "12345 678": not a grouping.
			continue
		}
		b.WriteString(l[last:loc[0]])
		b.WriteString(strings.Map(func(r rune) rune {
			if strings.ContainsRune(oddSpaces, r) {
				return -1
			}
			return r
		}, m))
		last = loc[1]
	}
	b.WriteString(l[last:])
	return oddSpaceReplacer.Replace(b.String())
}
