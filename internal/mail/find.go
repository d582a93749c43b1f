package mail

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/kdelta/kdelta/internal/result"
)

// A Section is what one quote level of one message says: the commands it
// ran, the outputs and tables it pasted (per variant), the claims it
// makes, the setup it states, and what it showed but could not be read.
type Section struct {
	Msg   *Message
	Level int
	// Author is who wrote this level, as the attribution line above it
	// says ("On ..., Jirka Hladky wrote:"), when it says.
	Author   string
	Commands []*Command
	Outputs  []*Output
	Claims   []*Claim
	Setup    []Line
	Unread   []Problem
}

// A Problem is a line that looks like data kdelta could not read, and
// what was expected there.
type Problem struct {
	Line int
	Text string
	Msg  string
}

// An Output is one span of a section that an importer (or a known
// command's output reader) read: its sets, one per variant it holds.
type Output struct {
	Line, End int
	// Variant is the title the mail gave the span ("Baseline (without
	// fix)", "PREEMPT_AUTO, preempt=full"), "" when none.
	Variant string
	// Command is the command whose output this is, nil for a table.
	Command *Command
	// Format is the importer that read it.
	Format string
	Sets   []*result.Set
}

// Analysis is a whole thread, section by section, in the order of its
// messages and, within one, from the outermost quote level in.
type Analysis struct {
	Messages []*Message
	Sections []*Section
}

// Found tells whether anything at all was found: a command, an output,
// a claim or a line that could not be read.
func (a *Analysis) Found() bool {
	for _, s := range a.Sections {
		if len(s.Commands)+len(s.Outputs)+len(s.Claims)+len(s.Unread) > 0 {
			return true
		}
	}
	return false
}

// Analyze reads a mail or a thread and finds, level by level, what each
// level ran, measured and claimed.
func Analyze(name string, data []byte) (*Analysis, error) {
	msgs, err := Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a := &Analysis{Messages: msgs}
	for _, m := range msgs {
		for _, lv := range m.Levels() {
			s := &Section{Msg: m, Level: lv}
			s.find(name, m.Lines, lv)
			a.Sections = append(a.Sections, s)
		}
	}
	for _, s := range a.Sections {
		s.checkClaims()
	}
	return a, nil
}

// A paragraph is a run of non-blank lines of one level.
type paragraph []Line

func paragraphs(lines []Line, level int) []paragraph {
	var out []paragraph
	var cur paragraph
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
	}
	for _, l := range lines {
		if l.Level != level || strings.TrimSpace(l.Text) == "" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

// attributionRE matches the end of "On DATE, NAME <ADDR> wrote:": the
// name is what follows the last comma or clock time.
var attributionRE = regexp.MustCompile(`(?i)(?:^|,|\d:\d\d(?::\d\d)?\s*(?:[AP]M)?(?:\s*[-+]\d{4})?,?)\s*([^,:<>\[\]]+?)\s*(?:<[^>]*>|\[[^\]]*\])?\s+(?:wrote|writes|a écrit)\s*:?\s*$`)

var variantTitleRE = regexp.MustCompile(`(?i)\b(with|without|w/o|before|after|baseline|base|patched|unpatched|vanilla|fix|fixed|default|old|new|kernel|series|serie|patch|revert(?:ed)?)\b|\bv?\d+\.\d+(?:[.-]\w+)?\b|[A-Z]{2,}_[A-Z_]+|=`)

// isTitle tells whether a paragraph of one line names the variant of the
// data after it ("With fix:", "PREEMPT_AUTO, preempt=full").
func isTitle(p paragraph) (string, bool) {
	if len(p) != 1 || strings.Contains(p[0].Text, "|") {
		return "", false
	}
	t := strings.TrimSpace(p[0].Text)
	if len(t) > 60 || len(strings.Fields(t)) > 8 || strings.HasSuffix(t, ".") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, ",") {
		return "", false
	}
	if commandOf(t) != "" || !variantTitleRE.MatchString(t) || numberRE.MatchString(strings.TrimSuffix(t, ":")) && !strings.HasSuffix(t, ":") && !strings.ContainsAny(t, "=_") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimSuffix(t, ":")), true
}

var numberRE = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?\s*(?:%|ns|us|µs|ms|s|cycles)?\s*$`)

// find fills s from the lines of one level.
func (s *Section) find(name string, lines []Line, level int) {
	if used := s.lkp(lines, level); len(used) > 0 {
		var rest []Line
		for _, l := range lines {
			if l.Level == level && used[l.N] {
				l.Text = ""
			}
			rest = append(rest, l)
		}
		lines = rest
	}
	ps := paragraphs(lines, level)
	// The attribution line of this level sits one level out, just above.
	for i, l := range lines {
		if l.Level == level && (i == 0 || lines[i-1].Level < level) && i > 0 {
			t := strings.TrimSpace(lines[i-1].Text)
			if len(t) > 200 {
				t = t[len(t)-200:]
			}
			if m := attributionRE.FindStringSubmatch(t); m != nil && s.Author == "" {
				s.Author = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(m[1]), "AM "), "PM "))
			}
		}
	}
cut:
	for i, p := range ps {
		for k, l := range p {
			if endOfReport(l.Text) {
				ps = append(ps[:i:i], p[:k])
				if k == 0 {
					ps = ps[:i]
				}
				break cut
			}
		}
	}
	variant := ""
	var cmd *Command
	fresh := false // the data that follows is cmd's own output
	for pi, p := range ps {
		if t, ok := isTitle(p[:1]); ok && (len(p) > 1 && strings.HasSuffix(strings.TrimSpace(p[0].Text), ":") || len(p) == 1 && pi+1 < len(ps) && (!isProse(ps[pi+1]) || toolOutput(name, ps[pi+1]))) {
			variant = t
			p = p[1:]
			if len(p) == 0 {
				continue
			}
		}
		if isProse(p) && !toolOutput(name, p) {
			fresh, variant = false, ""
			s.prose(p)
			continue
		}
		// A paragraph of data, or commands with their output.
		var span []Line
		flush := func() {
			if len(span) > 0 && !s.readSpan(name, span, variant, cmd, fresh) {
				s.prose(span)
			}
			span = nil
		}
		for _, l := range p {
			if c := commandOf(l.Text); c != "" {
				flush()
				cmd = newCommand(l, c, variant)
				fresh = true
				s.Commands = append(s.Commands, cmd)
				continue
			}
			span = append(span, l)
		}
		flush()
	}
	s.proseCommands(ps)
	s.setup(ps)
}

// endOfReport tells whether a line starts what follows a report in a
// patch mail: the "---" before the diffstat, or the diff itself.
func endOfReport(l string) bool {
	t := strings.TrimRight(l, " ")
	return t == "---" || t == "-- " || strings.HasPrefix(t, "diff --git ")
}

// toolOutput tells whether a paragraph that reads like sentences is a
// tool's output an importer knows (hackbench's "Running in threaded mode
// ...").
func toolOutput(name string, p paragraph) bool {
	var b strings.Builder
	for _, l := range p {
		b.WriteString(l.Text + "\n")
	}
	sets, err := result.ImportSets(name, []byte(b.String()), "")
	return err == nil && len(sets) > 0 && sets[0].Tool != "import table"
}

// isProse tells whether a paragraph is sentences rather than data: most
// of its lines are words with few numbers.
func isProse(p paragraph) bool {
	words, nums := 0, 0
	for _, l := range p {
		if strings.Contains(l.Text, "|") || commandOf(l.Text) != "" {
			return false
		}
		for _, f := range strings.Fields(l.Text) {
			if hasDigit(f) {
				nums++
			} else if len(f) > 1 && hasLetter(f) {
				// A rule of dashes under a header is no word.
				words++
			}
		}
	}
	return words >= 4 && words > 3*nums
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// readSpan reads a span of data lines with kdelta's importers, with the
// command that made it in front (perf stat's line names its workload and
// its -r), or with the reader of a known command's output.
func (s *Section) readSpan(name string, span []Line, variant string, cmd *Command, fresh bool) bool {
	if !fresh {
		cmd = nil
	}
	var b strings.Builder
	pre := 0
	if cmd != nil && strings.Contains(cmd.Text, "perf stat") {
		b.WriteString(" # " + cmd.Text + "\n\n")
		pre = 2
	}
	for _, l := range span {
		b.WriteString(l.Text + "\n")
	}
	text := b.String()
	if s.Msg.Flattened {
		text = restoreColumns(text)
	}
	where := fmt.Sprintf("%s: line %d", name, span[0].N)
	out := &Output{Line: span[0].N, End: span[len(span)-1].N, Variant: variant, Command: cmd}
	if cmd != nil {
		if sets, format, ok := readCommandOutput(cmd, span); ok {
			out.Format, out.Sets = format, sets
			s.Outputs = append(s.Outputs, out)
			return true
		}
	}
	if s.readShape(span, variant) {
		return true
	}
	sets, err := result.ImportSets(where, []byte(text), "")
	if err != nil {
		if what := knownUnread(span); what != "" {
			s.Unread = append(s.Unread, Problem{Line: span[0].N, Text: strings.TrimSpace(span[0].Text), Msg: what})
			return true
		}
		if tabular(span) {
			s.Unread = append(s.Unread, problemOf(err, span, pre))
		}
		return false
	}
	out.Format = strings.TrimPrefix(sets[0].Tool, "import ")
	out.Sets = sets
	s.Outputs = append(s.Outputs, out)
	// The span's own claims (derived columns, remarks) are the importer's:
	// keep them as claims of this section.
	seen := map[string]bool{}
	for _, st := range sets {
		for _, w := range st.Warnings {
			if strings.Contains(w, "the mail says") && !seen[w] {
				seen[w] = true
				s.Claims = append(s.Claims, &Claim{Line: span[0].N, Text: w, Kind: ClaimTable, Verdict: "the table's values do not give it (the importer's check)"})
			}
		}
		for _, b := range st.Benchmarks {
			for _, r := range b.Runs {
				cl := r.Info["claim"]
				if cl == "" || seen[cl] {
					continue
				}
				seen[cl] = true
				v := "the table's values give it (the importer's check)"
				for w := range seen {
					if strings.Contains(w, strconv.Quote(cl)) {
						v = "the table's values do not give it (the importer's check)"
					}
				}
				what := cl
				if vs := r.Info["claim-vs"]; vs != "" {
					what += " (vs " + vs + ")"
				}
				s.Claims = append(s.Claims, &Claim{Line: span[0].N, Text: what, Kind: ClaimTable, Verdict: v})
			}
		}
	}
	return true
}

// knownUnread names the outputs kdelta recognises but does not compare
// from a mail: perf annotate's and perf report's listings.
func knownUnread(span []Line) string {
	bars, report, mmBlock := 0, false, 0
	for _, l := range span {
		if mmBlockRE.MatchString(l.Text) {
			mmBlock++
		}
		if strings.Contains(l.Text, "│") {
			bars++
		}
		if strings.Contains(l.Text, "# Overhead") || strings.Contains(l.Text, "[k] ") || strings.Contains(l.Text, "[.] ") {
			report = true
		}
	}
	switch {
	case bars*2 >= len(span):
		return "perf annotate output: kept as the mail's, not compared (kdelta profile annotate reads a perf.data)"
	case report:
		return "perf report output: kept as the mail's, not compared (kdelta profile diff compares two recorded profiles)"
	case mmBlock > 0 && mmBlock+2 >= len(span):
		return "mmtests' duration or counter block (the time the whole run took, vmstat counters): kept as the mail's, not compared"
	}
	return ""
}

// mmBlockRE matches a row of the blocks mmtests prints after a compare
// table: "Duration User 1412.88 1398.20", "Ops NUMA alloc hit 10824 ...".
var mmBlockRE = regexp.MustCompile(`^\s*(?:Duration (?:User|System|Elapsed)|Ops [A-Za-z][\w -]*?)\s+\d[\d.]*(?:\s+\d[\d.]*)+\s*$`)

// problemOf turns an importer's error into a problem naming the mail's
// line: the importer counts the span's lines from 1.
func problemOf(err error, span []Line, pre int) Problem {
	var se *result.SyntaxError
	msg := err.Error()
	line := span[0].N
	if asSyntax(err, &se) {
		msg = se.Msg
		if k := se.Line - pre; k >= 1 && k <= len(span) {
			line = span[k-1].N
		}
	}
	text := ""
	for _, l := range span {
		if l.N == line {
			text = strings.TrimSpace(l.Text)
		}
	}
	return Problem{Line: line, Text: text, Msg: msg}
}

// sentence tells whether a line reads as words with a number or two in
// them ("Results on a Raspberry Pi 5 (4x Cortex-A76, 2.4 GHz, fan at
// full"), not as a row of a table: six words or more, twice as many as
// its numbers.
func sentence(t string) bool {
	words, nums := 0, 0
	for _, f := range strings.Fields(t) {
		if hasDigit(f) {
			nums++
		} else if len(f) > 1 {
			words++
		}
	}
	return words >= 6 && words >= 2*nums
}

// trailerRE matches a patch's trailers and pasted address headers.
var trailerRE = regexp.MustCompile(`^[A-Z][\w-]*:\s.*[<@]`)

// tabular tells whether a span looks like a table or an output: two lines
// or more with a number each.
func tabular(span []Line) bool {
	n := 0
	for _, l := range span {
		t := strings.TrimSpace(l.Text)
		if hasDigit(t) && !pctWordRE.MatchString(t) && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") && !trailerRE.MatchString(t) && !sentence(t) {
			n++
		}
	}
	return n >= 2
}
