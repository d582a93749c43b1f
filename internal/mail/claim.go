package mail

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// ClaimKind says what a claim asserts.
type ClaimKind string

// The kinds of claims.
const (
	// ClaimChange is a stated change: "38% improvement", "-32%",
	// "0,8% less context switches".
	ClaimChange ClaimKind = "change"
	// ClaimSame asserts no difference: "identical behaviour", "similar
	// performance", "no regression".
	ClaimSame ClaimKind = "same"
	// ClaimTable is a derived cell of a table that its values do not give
	// (the importer's check).
	ClaimTable ClaimKind = "table"
)

// A Claim is what the mail says of its own numbers, found in its prose,
// and what its numbers give.
type Claim struct {
	Line int
	Text string
	Kind ClaimKind
	// Stated is the change as stated, in percent: signed (a change of the
	// value: "-32%", "37% more") unless Better is set ("38% improvement",
	// "14% faster": positive is for the better).
	Stated   float64
	Better   bool
	Decimals int
	// From and To are the two values the claim's own line states ("9.75
	// ms -> 6.04 ms"), NaN when it states none.
	From, To float64
	// Checks are the recomputations: from the line's own values, and
	// from every pair of the mail's outputs the claim speaks of.
	Checks []Check
	// Verdict sums the checks up.
	Verdict string
}

// A Check is one recomputation of a claim.
type Check struct {
	// What names the figures: "ns/call, Without the serie -> With the
	// serie", or "its own values".
	What string
	// Change is B/A − 1 in percent; Implied the claim's figure as those
	// values give it.
	Change, Implied float64
	Agrees          bool
	// Differ is set when a test finds the two sides apart beyond their
	// spreads (p < α), whatever the noise threshold says of its size.
	Differ bool
	// Test is kdelta's judgement of the difference: "figures, no test"
	// when a side has no spread, else the verdict with its p and interval.
	Test string
}

var (
	// pctWordRE: "38% improvement", "0,8% less context switches",
	// "~33% on ppc64le" is not a claim of direction and is not matched.
	pctWordRE = regexp.MustCompile(`(?i)([-+−]?)~?(\d+(?:[.,]\d+)?)\s*%\s+(improvement|faster|slower|regression|degradation|less|fewer|more|lower|higher|better|worse|reduction|increase|drop|gain|speedup|speed-up|loss)\b`)
	// arrowRE: "9.75 ms -> 6.04 ms", "from 24 seconds to 16 seconds".
	arrowRE = regexp.MustCompile(`(?i)(\d[\d,]*(?:\.\d+)?)\s*([a-zµ]*)\s*(?:->|→|=>)\s*(\d[\d,]*(?:\.\d+)?)\s*([a-zµ]*)`)
	sameRE  = regexp.MustCompile(`(?i)\b(identical|similar (?:performance|results|numbers|behaviou?r)|(?:the )?same performance|no (?:significant |measurable |noticeable )?(?:difference|change|regression|impact)|unchanged|within (?:the )?noise|in the noise)\b`)
	// wordRE splits the context of a claim into words.
	wordRE = regexp.MustCompile(`[A-Za-z_]+`)
)

// prose finds the claims of a paragraph of sentences.
func (s *Section) prose(p paragraph) {
	text, lineAt := joinParagraph(p)
	for _, loc := range pctWordRE.FindAllStringSubmatchIndex(text, -1) {
		sign, num, word := text[loc[2]:loc[3]], text[loc[4]:loc[5]], strings.ToLower(text[loc[6]:loc[7]])
		c := &Claim{Line: lineAt(loc[0]), Kind: ClaimChange, From: math.NaN(), To: math.NaN()}
		v, _ := strconv.ParseFloat(strings.ReplaceAll(num, ",", "."), 64)
		if i := strings.IndexAny(num, ".,"); i >= 0 {
			c.Decimals = len(num) - i - 1
		}
		neg := sign == "-" || sign == "−"
		switch word {
		case "slower", "regression", "degradation", "worse", "loss":
			c.Better, c.Stated = true, -v
		case "improvement", "faster", "better", "gain", "speedup", "speed-up":
			c.Better, c.Stated = true, v
		case "less", "fewer", "lower", "reduction", "drop":
			c.Stated = -v
		default:
			c.Stated = v
			if neg {
				c.Stated = -v
			}
		}
		// "-12.3% regression": a sign before a word that gives the
		// direction restates it.
		// The claim's phrase runs to the end of its clause.
		end := clauseEnd(text, loc[1])
		start := 0
		if k := strings.LastIndexAny(text[:loc[0]], ";?!)"); k >= 0 {
			start = k + 1
		}
		if k := strings.LastIndex(text[:loc[0]], ". "); k >= start {
			start = k + 1
		}
		if k := strings.LastIndex(text[:loc[0]], " and "); k >= start {
			start = k + 5
		}
		c.Text = strings.TrimSpace(text[start:end])
		if a := arrowRE.FindStringSubmatch(text[start:end]); a != nil {
			c.From, _ = strconv.ParseFloat(strings.ReplaceAll(a[1], ",", ""), 64)
			c.To, _ = strconv.ParseFloat(strings.ReplaceAll(a[3], ",", ""), 64)
		}
		s.Claims = append(s.Claims, c)
	}
	for _, loc := range sameRE.FindAllStringIndex(text, -1) {
		start, end := 0, loc[1]
		if k := strings.LastIndexAny(text[:loc[0]], ";?!:"); k >= 0 {
			start = k + 1
		}
		if k := strings.LastIndex(text[:loc[0]], ". "); k >= start {
			start = k + 1
		}
		end = clauseEnd(text, end)
		if dup(s.Claims, text[start:end]) {
			continue
		}
		s.Claims = append(s.Claims, &Claim{Line: lineAt(loc[0]), Kind: ClaimSame, Text: strings.TrimSpace(text[start:end]), From: math.NaN(), To: math.NaN()})
	}
}

// clauseEnd is where the clause that runs on from i ends: at a full
// stop (not a decimal point), ";", "?", "!", ")" or " and ".
func clauseEnd(text string, i int) int {
	for j := i; j < len(text); j++ {
		switch text[j] {
		case ';', '?', '!', ')':
			return j
		case '.':
			if j+1 >= len(text) || text[j+1] == ' ' {
				return j
			}
		}
		if strings.HasPrefix(text[j:], " and ") {
			return j
		}
	}
	return len(text)
}

func dup(cs []*Claim, text string) bool {
	for _, c := range cs {
		if strings.Contains(c.Text, strings.TrimSpace(text)) || strings.Contains(strings.TrimSpace(text), c.Text) {
			return true
		}
	}
	return false
}

// A pair is one metric measured under two of the mail's variants.
type pair struct {
	a, b     *result.Benchmark
	sa, sb   *result.Set
	va, vb   string
	metric   result.Metric
	workload string
	command  string
}

// pairs returns the metrics of the section measured under two variants,
// the first variant the mail names as the baseline of each later one.
func (s *Section) pairs() []pair {
	type side struct {
		variant string
		set     *result.Set
		b       *result.Benchmark
		command string
	}
	byKey := map[string][]side{}
	metric := map[string]result.Metric{}
	var keys []string
	for _, o := range s.Outputs {
		for _, st := range o.Sets {
			v := o.Variant
			if lv := st.Labels[result.VariantParam]; lv != "" {
				v = lv
			}
			cmd := ""
			if o.Command != nil {
				cmd = o.Command.Text
			}
			for _, b := range st.Benchmarks {
				for _, m := range b.Metrics {
					if len(b.Values(m.Name)) == 0 && b.Summaries[m.Name] == (result.Summary{}) {
						continue
					}
					// Benchmarks of one shape (the same metrics) pair up:
					// two tables of runs, not a run table and a list.
					var shape []string
					for _, x := range b.Metrics {
						shape = append(shape, x.Name)
					}
					key := b.Workload + " " + result.FormatParams(b.Params) + " " + m.Name + " " + strings.Join(shape, ",")
					if _, ok := byKey[key]; !ok {
						keys = append(keys, key)
						metric[key] = m
					}
					byKey[key] = append(byKey[key], side{v, st, b, cmd})
				}
			}
		}
	}
	var out []pair
	for _, k := range keys {
		sides := byKey[k]
		for i := 1; i < len(sides); i++ {
			if sides[i].variant == sides[0].variant {
				continue
			}
			out = append(out, pair{a: sides[0].b, b: sides[i].b, sa: sides[0].set, sb: sides[i].set, va: sides[0].variant, vb: sides[i].variant, metric: metric[k], workload: sides[0].b.Workload, command: sides[0].command})
		}
	}
	return out
}

// directionUnknown tells whether the importer had to assume the
// direction of metric in s.
func directionUnknown(s *result.Set, metric string) bool {
	for _, w := range s.Warnings {
		if strings.Contains(w, "no known direction") && strings.Contains(w, metric) {
			return true
		}
	}
	return false
}

// stem reduces a word for matching: lower case, a plural's s dropped.
func stem(w string) string {
	w = strings.ToLower(w)
	w = strings.TrimSuffix(w, "es")
	return strings.TrimSuffix(w, "s")
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.NewReplacer("_", " ", "-", " ", "/", " ").Replace(s), -1) {
		if len(w) > 2 {
			out[stem(w)] = true
		}
	}
	return out
}

// checkClaims recomputes each claim of the section from its own values
// and from the section's outputs it speaks of.
func (s *Section) checkClaims() {
	ps := s.pairs()
	for _, c := range s.Claims {
		if c.Kind == ClaimTable || len(c.Checks) > 0 {
			// The importer's, or a 0-day row's, checked where it was read.
			continue
		}
		if !math.IsNaN(c.From) && !math.IsNaN(c.To) && c.From != 0 {
			ch := 100 * (c.To/c.From - 1)
			c.Checks = append(c.Checks, c.check("its own values", ch, false, "figures, no test"))
		}
		// The pairs the claim speaks of: those whose metric, workload or
		// command shares a word with the claim, else, for a claim of no
		// difference or a section of one metric, all of them.
		words := wordSet(c.Text)
		type scored struct {
			p pair
			n int
		}
		var best []scored
		top := 0
		for _, p := range ps {
			n := 0
			for w := range wordSet(p.metric.Name + " " + p.workload + " " + p.command + rateWords(p.metric)) {
				if words[w] {
					n++
				}
			}
			if n > top {
				top, best = n, nil
			}
			if n == top {
				best = append(best, scored{p, n})
			}
		}
		if top == 0 && c.Kind == ClaimChange && len(ps) > 0 && len(uniqueMetrics(ps)) > 1 {
			best = nil
		}
		for _, sp := range best {
			if !math.IsNaN(c.From) && !near(sp.p, c.From) {
				// The claim states its values: a pair whose baseline is
				// another statistic (the mean of maxima for "max
				// latency") is not what it speaks of.
				continue
			}
			c.Checks = append(c.Checks, c.checkPair(sp.p))
		}
		c.Verdict = c.verdict()
	}
}

// rateWords are the words a claim uses for a rate metric ("bogo-ops/s":
// "14% more switches per second"), so that it speaks of the rate rather
// than of the times measured beside it.
func rateWords(m result.Metric) string {
	for _, x := range []string{m.Name, m.Unit} {
		if strings.HasSuffix(x, "/s") || strings.Contains(x, "/s-") || strings.HasSuffix(x, "/sec") || strings.HasSuffix(x, "/s)") {
			return " per second"
		}
	}
	return ""
}

// near tells whether the baseline of p is v, to the 2% a mail's rounding
// and units leave.
func near(p pair, v float64) bool {
	m := math.NaN()
	if vs := p.a.Values(p.metric.Name); len(vs) > 0 {
		m = stats.Summarize(vs).Mean
	} else if s, ok := p.a.Summaries[p.metric.Name]; ok {
		m = s.Mean
	}
	return m != 0 && math.Abs(v/m-1) <= 0.02
}

func uniqueMetrics(ps []pair) map[string]bool {
	m := map[string]bool{}
	for _, p := range ps {
		m[p.workload+"/"+p.metric.Name] = true
	}
	return m
}

// check judges a change (in percent) against the claim.
func (c *Claim) check(what string, change float64, higher bool, test string) Check {
	k := Check{What: what, Change: change, Implied: change, Test: test}
	if c.Kind == ClaimSame {
		k.Implied = change
		return k
	}
	if c.Better {
		// An improvement of a time is the share saved; of a rate its rise.
		k.Implied = -change
		if higher {
			k.Implied = change
		}
	}
	tol := 1.5 * math.Pow10(-c.Decimals)
	if c.Decimals == 0 {
		tol = 1
	}
	k.Agrees = math.Abs(k.Implied-c.Stated) <= tol
	if !k.Agrees && c.Better && !higher && change != 0 {
		// "x% faster" of a time may also be the speed-up a/b − 1.
		sp := 100 * (1/(1+change/100) - 1)
		if math.Abs(sp-c.Stated) <= tol {
			k.Implied, k.Agrees = sp, true
		}
	}
	return k
}

// checkPair recomputes the claim from a pair of the mail's outputs and
// judges the difference as kdelta compare does.
func (c *Claim) checkPair(p pair) Check {
	what := fmt.Sprintf("%s %s, %s -> %s", p.workload, p.metric.Name, orNone(p.va), orNone(p.vb))
	// The verdict follows compare's rule: one session a side is judged
	// with the session noise assumed for the sets' kind of machine (a
	// mail's have no fingerprint), and says so.
	cmp, err := compare.MetricIn(p.sa, p.a, p.sb, p.b, p.metric.Name, compare.Options{})
	if err != nil {
		sa, oka := p.a.Summaries[p.metric.Name]
		sb, okb := p.b.Summaries[p.metric.Name]
		if oka && okb && sa.Mean != 0 {
			return c.check(what, 100*(sb.Mean/sa.Mean-1), p.metric.Better == result.Higher, "a spread without its n: figures, no test")
		}
		return Check{What: what, Change: math.NaN(), Implied: math.NaN(), Test: err.Error()}
	}
	change := 100 * centreChange(p, cmp)
	test := judge(p, cmp)
	k := c.check(what, change, p.metric.Better == result.Higher, test)
	if !k.Agrees && c.Better && directionUnknown(p.sa, p.metric.Name) {
		// The table did not say which way is better; the claim's word
		// does, and the figures are read that way, saying so.
		if alt := c.check(what, change, p.metric.Better != result.Higher, test); alt.Agrees {
			k = alt
			k.Test += "; the table gives no direction: read as the claim's word says"
		}
	}
	// Whether the figures differ beyond their own spreads is a statement
	// of the runs alone, so it is tested with the runs as independent.
	if runs, err := compare.Metric(p.a, p.b, p.metric.Name, compare.Options{RunsOnly: true}); err == nil {
		k.Differ = runs.A.N > 1 && runs.B.N > 1 && !math.IsNaN(runs.P) && runs.P < runs.Options.Alpha
	}
	return k
}

func orNone(v string) string {
	if v == "" {
		return "(untitled)"
	}
	return v
}

// centreChange is the change of the means (what a mail computes), from
// the runs or the summaries.
func centreChange(p pair, cmp stats.Comparison) float64 {
	if cmp.A.Mean != 0 && !math.IsNaN(cmp.A.Mean) {
		return cmp.B.Mean/cmp.A.Mean - 1
	}
	return cmp.Change
}

// judge says kdelta's verdict on a pair: figures without a spread are
// compared as figures, never tested.
func judge(p pair, cmp stats.Comparison) string {
	na, nb := cmp.A.N, cmp.B.N
	if na <= 1 || nb <= 1 || math.IsNaN(cmp.P) {
		if s, ok := p.a.Summaries[p.metric.Name]; ok && s.N == 0 {
			return "a spread without its n: figures, no test"
		}
		return "figures, no test"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (n=%d vs %d, %s p=%.2g", cmp.Verdict.Words(), na, nb, testName(cmp), cmp.P)
	if !math.IsNaN(cmp.CI[0]) && !math.IsInf(cmp.CI[0], 0) && !math.IsInf(cmp.CI[1], 0) {
		fmt.Fprintf(&b, ", 95%% CI %+.2f%% .. %+.2f%%", 100*cmp.CI[0], 100*cmp.CI[1])
	}
	b.WriteString("); one session a side")
	if a := cmp.Design.Noise.Assumption(); a != "" {
		b.WriteString(", " + a)
	} else if cmp.Design.NoiseUnknown {
		b.WriteString(", session noise unknown")
	} else if cmp.Design.Noise.Known() {
		fmt.Fprintf(&b, ", session noise ±%.1f%%", 100*cmp.Design.Noise.SD)
	}
	return b.String()
}

func testName(cmp stats.Comparison) string {
	if cmp.Design.Noise.Known() && !cmp.Design.Shared {
		return "t over sessions"
	}
	if cmp.Options.Test == stats.TestWelch {
		return "Welch"
	}
	return "Mann-Whitney"
}

// verdict sums a claim's checks up in one line.
func (c *Claim) verdict() string {
	if len(c.Checks) == 0 {
		return "no figures in the mail to recompute it from"
	}
	if c.Kind == ClaimSame {
		var differ []string
		for _, k := range c.Checks {
			if k.Differ {
				differ = append(differ, fmt.Sprintf("%s by %+.2f%%", k.What, k.Change))
			}
		}
		if len(differ) > 0 {
			sort.Strings(differ)
			return "the mail's own figures differ beyond their spreads: " + strings.Join(differ, "; ")
		}
		return "no difference shown beyond the spreads (which is not a proof of none)"
	}
	agree := 0
	for _, k := range c.Checks {
		if k.Agrees {
			agree++
		}
	}
	switch {
	case agree == len(c.Checks):
		return "the figures give it"
	case agree == 0:
		return "the figures do not give it"
	}
	return "some of the figures give it"
}
