package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/mail"
	"github.com/kdelta/kdelta/internal/result"
)

// replyWidth is the width of a reply draft: a mail's 72 columns.
const replyWidth = 72

// Reply writes a reply draft to the newest message of a thread: its
// headers (Subject: Re: ..., In-Reply-To, References), then, for each
// command kdelta ran, the mail's lines quoted, this machine's figures
// beside the mail's (compared as figures: another machine's numbers are
// never tested against ours), the mail's claims as its own numbers give
// them, and the setup a reviewer asks for, from ours' fingerprint.
// Every line is at most 72 columns. kdelta never sends it.
func Reply(w io.Writer, a *mail.Analysis, ours []*result.Set) {
	m := a.Messages[len(a.Messages)-1]
	subj := m.Subject
	if subj == "" {
		subj = "(the mail gave no subject)"
	}
	if !strings.HasPrefix(strings.ToLower(subj), "re:") {
		subj = "Re: " + subj
	}
	var out []string
	out = append(out, wrapHeader("Subject: "+subj)...)
	if m.ID != "" {
		out = append(out, "In-Reply-To: "+m.ID)
		refs := append(append([]string(nil), m.References...), m.ID)
		if m.InReplyTo != "" && !containsStr(refs, m.InReplyTo) {
			refs = append([]string{m.InReplyTo}, refs...)
		}
		out = append(out, wrapHeader("References: "+strings.Join(refs, " "))...)
	}
	out = append(out, "")
	who := "the mail reports"
	if m.From != "" {
		who = m.From + " reports"
	}
	out = append(out, wrap("Hi, I reran what "+who+" with kdelta reproduce on this machine.", "")...)
	for _, s := range a.Sections {
		out = append(out, replySection(m, s, ours)...)
	}
	if env := setupLines(ours); len(env) > 0 {
		out = append(out, "", "This machine's setup (kdelta env):")
		for _, e := range env {
			out = append(out, wrap(e, "  ")...)
		}
	}
	out = append(out, "")
	out = append(out, wrap("Figures from two machines are set side by side, never tested against each other.", "")...)
	for _, l := range out {
		fmt.Fprintln(w, l)
	}
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// replySection answers one quote level: each command run here, quoted,
// with the mail's figures and ours; each claim with what its numbers give.
func replySection(m *mail.Message, s *mail.Section, ours []*result.Set) []string {
	var out []string
	done := map[string]bool{}
	for _, c := range s.Commands {
		b := ourBench(c, ours)
		if b == nil || done[c.Map.Spec] {
			continue
		}
		done[c.Map.Spec] = true
		out = append(out, "")
		out = append(out, quoteLines(m, s, c.Line, c.Line)...)
		out = append(out, "")
		for _, o := range s.Outputs {
			for _, st := range o.Sets {
				for _, mb := range st.Benchmarks {
					for _, met := range mb.Metrics {
						if !sameMetric(b, met) {
							continue
						}
						label := o.Variant
						if v := st.Labels[result.VariantParam]; v != "" {
							label = v
						}
						if label == "" {
							label = "the mail"
						}
						out = append(out, wrap(fmt.Sprintf("%s, %s: %s", label, met.Name, metricFigures(mb, met)), "  ")...)
					}
				}
			}
		}
		for _, met := range b.Metrics {
			if vs := b.Values(met.Name); len(vs) > 0 && mailHas(s, met.Name) {
				out = append(out, wrap(fmt.Sprintf("here (%s %s), %s: %s", b.Workload, result.FormatParams(b.Params), met.Name, metricFigures(b, met)), "  ")...)
			}
		}
	}
	quoted := map[int]bool{}
	for _, c := range s.Claims {
		if len(c.Checks) == 0 || c.Kind == mail.ClaimTable {
			continue
		}
		if !quoted[c.Line] {
			quoted[c.Line] = true
			out = append(out, "")
			out = append(out, quoteLines(m, s, c.Line, c.Line)...)
		}
		out = append(out, "")
		for _, k := range c.Checks {
			out = append(out, wrap(fmt.Sprintf("%s: %s; %s", k.What, checkLine(c, k), k.Test), "  ")...)
		}
		out = append(out, wrap("So: "+c.Verdict+".", "")...)
	}
	return out
}

// sameMetric tells whether b measures the mail's metric m: the same name
// in the same unit.
func sameMetric(b *result.Benchmark, m result.Metric) bool {
	for _, x := range b.Metrics {
		if strings.EqualFold(x.Name, m.Name) && m.Unit != "" && strings.EqualFold(x.Unit, m.Unit) {
			return true
		}
	}
	return false
}

func hasMetricNamed(b *result.Benchmark, name string) bool {
	for _, m := range b.Metrics {
		if strings.EqualFold(m.Name, name) {
			return true
		}
	}
	return false
}

func mailHas(s *mail.Section, metric string) bool {
	for _, o := range s.Outputs {
		for _, st := range o.Sets {
			for _, b := range st.Benchmarks {
				if hasMetricNamed(b, metric) {
					return true
				}
			}
		}
	}
	return false
}

// ourBench finds the benchmark kdelta ran for a command: the workload
// and parameters of its spec.
func ourBench(c *mail.Command, ours []*result.Set) *result.Benchmark {
	if c.Map.Spec == "" {
		return nil
	}
	name, ps, _ := strings.Cut(c.Map.Spec, ":")
	// The benchmark of the same workload whose parameters agree most
	// with the command's: --quick changes the sizes.
	var best *result.Benchmark
	top := -1
	for _, s := range ours {
		for _, b := range s.Benchmarks {
			if b.Workload != name || len(b.Measured()) == 0 {
				continue
			}
			n := 0
			for _, p := range strings.Split(ps, ",") {
				k, v, _ := strings.Cut(p, "=")
				if k != "" && b.Params[k] == strings.Trim(v, "'") {
					n++
				}
			}
			if n > top {
				best, top = b, n
			}
		}
	}
	return best
}

// quoteLines quotes the mail's lines from..to of section s as a reply
// quotes them: one more ">" than they had.
func quoteLines(m *mail.Message, s *mail.Section, from, to int) []string {
	var out []string
	for _, l := range m.Lines {
		if l.N < from || l.N > to || l.Level != s.Level {
			continue
		}
		prefix := ">" + strings.Repeat(">", l.Level) + " "
		// A line that fits is quoted as it stands, its columns kept (a
		// table's row stays a row); a longer one is filled.
		if t := expandTabs(strings.TrimSpace(l.Text)); len([]rune(prefix+t)) <= replyWidth {
			out = append(out, strings.TrimRight(prefix+t, " "))
			continue
		}
		out = append(out, wrap(strings.TrimSpace(l.Text), prefix)...)
	}
	return out
}

// expandTabs replaces each tab by the spaces to the next multiple of 8.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// setupLines are the setup facts of the sets kdelta measured.
func setupLines(ours []*result.Set) []string {
	for _, s := range ours {
		if s.Env == nil {
			continue
		}
		e := s.Env
		return []string{
			"kernel: " + e.Kernel.Release.String(),
			"preemption: " + e.Preempt.Model.String() + ", mode " + e.Preempt.Mode.String(),
			"CPU: " + e.CPU.Model.String() + ", online " + e.CPU.Online.String(),
		}
	}
	return nil
}

func wrapHeader(h string) []string {
	if len(h) <= replyWidth {
		return []string{h}
	}
	lines := wrap(h, "")
	for i := 1; i < len(lines); i++ {
		lines[i] = " " + lines[i]
	}
	return lines
}

// wrap fills text into lines of at most replyWidth columns, each starting
// with prefix; a word longer than a line is cut.
func wrap(text, prefix string) []string {
	width := replyWidth - len([]rune(prefix))
	if width < 20 {
		width = 20
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(text) {
		for len([]rune(w)) > width {
			if cur != "" {
				out = append(out, prefix+cur)
				cur = ""
			}
			r := []rune(w)
			out = append(out, prefix+string(r[:width]))
			w = string(r[width:])
		}
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) <= width:
			cur += " " + w
		default:
			out = append(out, prefix+cur)
			cur = w
		}
	}
	if cur != "" || len(out) == 0 {
		out = append(out, strings.TrimRight(prefix+cur, " "))
	}
	return out
}
