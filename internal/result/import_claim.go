package result

import (
	"math"
	"regexp"
	"strings"
)

// A derived column ("Improvement (%)", "vs enforcing") or a parenthesised
// remark after a value ("(14% faster)") is what the mail says of a change,
// not a measurement: the importer keeps it as the mail's claim, in the
// run's Info (claim, claim-vs: the variant or row it is relative to), and
// checks it against the values, warning when they do not give it.

var claimRE = regexp.MustCompile(`^\(?\s*([-+]?)\s*(\d[\d,]*(?:\.(\d*))?)\s*(%|x|×)?\s*([A-Za-z][A-Za-z ]*)?\)?\.?$`)

// derivedWords in a header make its column a derived one. "better" is
// not one: "Throughput (higher is better)" is a quantity.
var derivedWords = []string{"improvement", "faster", "slower", "speedup", "speed-up", "gain", "change", "delta", "diff", "regression"}

// isDerivedHeader tells whether a column header names a change rather
// than a quantity: "Improvement (%)", "vs enforcing", "% faster".
func isDerivedHeader(h string) bool {
	l := strings.ToLower(strings.TrimSpace(h))
	if strings.HasPrefix(l, "vs ") || strings.HasPrefix(l, "vs.") || strings.HasPrefix(l, "versus") {
		return true
	}
	for _, w := range derivedWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// A claim is a change as a mail states it.
type claim struct {
	text string
	// pct is the percentage stated; signed is set when it is a signed
	// change of the value (+1.6%, 10% lower), else it is an improvement
	// (31.61% faster: positive is for the better).
	pct      float64
	signed   bool
	decimals int
	// ratio is set for a speed-up as a factor ("1.46x faster": pct is
	// 1.46), worse for one of a slow-down ("2x slower").
	ratio, worse bool
}

// isBaselineCell tells whether a derived cell marks the row the others
// are relative to.
func isBaselineCell(c string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(c), "()")) {
	case "baseline", "base", "reference", "ref", "-", "—", "–", "":
		return true
	}
	return false
}

// parseClaim reads a derived cell; header is its column's, which may say
// what a bare number is ("Improvement (%)": 31.61).
func parseClaim(cell, header string) (claim, bool) {
	m := claimRE.FindStringSubmatch(strings.TrimSpace(cell))
	if m == nil {
		return claim{}, false
	}
	v, err := parseNum(m[2])
	if err != nil {
		return claim{}, false
	}
	c := claim{text: strings.Trim(strings.TrimSpace(cell), "()"), pct: v, decimals: len(m[3])}
	if m[4] == "" && !strings.Contains(header, "%") {
		return claim{}, false
	}
	if m[4] == "x" || m[4] == "×" {
		// A factor says which way with its word alone.
		w := strings.ToLower(m[5])
		c.ratio, c.worse = true, hasAny(w, "slower", "worse", "regression")
		if m[1] != "" || v <= 0 || !c.worse && !hasAny(w, "faster", "speedup", "speed-up", "better", "quicker", "improvement") {
			return claim{}, false
		}
		return c, true
	}
	word := strings.ToLower(strings.TrimSpace(m[5]))
	if word == "" {
		word = strings.ToLower(header)
	}
	sign := 1.0
	if m[1] == "-" {
		sign = -1
	}
	// Without a word of its own, a cell means what its header says
	// ("Improvement (%)": -5.2 is for the worse), else it is a signed
	// change ("vs enforcing": +1.6%).
	switch {
	case hasAny(word, "slower", "regression", "worse", "degradation", "loss"):
		c.pct = -sign * v
	case hasAny(word, "faster", "improvement", "improved", "better", "gain", "speedup", "speed-up", "quicker"):
		c.pct = sign * v
	case hasAny(word, "lower", "less", "fewer", "reduction", "reduced", "decrease", "drop"):
		c.signed, c.pct = true, -sign*v
	case hasAny(word, "higher", "more", "increase", "increased", "up"):
		c.signed, c.pct = true, sign*v
	case m[5] == "":
		c.signed, c.pct = true, sign*v
	default:
		return claim{}, false
	}
	return c, true
}

func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// implied is the claim's figure as the values a (the claim's reference)
// and b give it: a signed change (b/a − 1), or an improvement, read as the
// share of time saved ((a−b)/a: 75.54 s → 51.66 s is 31.61% faster) for
// a metric where lower is better, or the rise for one where higher is.
func (c claim) implied(a, b float64, better Better) float64 {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	change := 100 * (b - a) / a
	if c.ratio {
		r := a / b
		if better == Higher {
			r = b / a
		}
		if c.worse {
			r = 1 / r
		}
		return r
	}
	if c.signed || better == Higher {
		return change
	}
	return -change
}

// agrees tells whether the values a and b give the claim, to the
// precision it is written in and one unit of its last digit more (the mail
// rounded values of its own); an improvement of a time may also be a
// speed-up (a/b − 1).
func (c claim) agrees(a, b float64, better Better) bool {
	tol := 1.5 * math.Pow10(-c.decimals)
	if math.Abs(c.implied(a, b, better)-c.pct) <= tol {
		return true
	}
	return !c.signed && !c.ratio && better != Higher && b != 0 && math.Abs(100*(a/b-1)-c.pct) <= tol
}

// keepClaim records c on r as the mail's claim relative to vs.
func keepClaim(r *Run, c claim, vs string) {
	if r.Info == nil {
		r.Info = map[string]string{}
	}
	r.Info["claim"] = c.text
	if vs != "" {
		r.Info["claim-vs"] = vs
	}
}

// claimWarning says that the values a (the reference) and b do not give
// a claim about what, and what they give.
func claimWarning(in *input, line int, c claim, what string, a, b float64, better Better) string {
	unit := "%"
	if c.ratio {
		unit = "x"
	}
	return in.warnf(line, "table: the mail says %q of %s; the values give %.*f%s", c.text, what, c.decimals, c.implied(a, b, better), unit)
}
