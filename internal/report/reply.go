package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"

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
	where := "on this machine"
	for _, s := range ours {
		if s.Labels["vm"] != "" {
			where = "on this machine, each kernel booted in qemu"
		}
	}
	out = append(out, wrap("Hi, I reran what "+who+" with kdelta reproduce "+where+".", "")...)
	for _, s := range a.Sections {
		out = append(out, replySection(m, s, ours)...)
	}
	if env := setupLines(ours); len(env) > 0 {
		if where != "on this machine" {
			out = append(out, "", "The first guest's setup (kdelta env):")
		} else {
			out = append(out, "", "This machine's setup (kdelta env):")
		}
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
		sides := ourBenches(c, ours)
		if len(sides) == 0 || done[c.Map.Spec] {
			continue
		}
		b := sides[0].b
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
		for _, side := range sides {
			for _, met := range side.b.Metrics {
				if vs := side.b.Values(met.Name); len(vs) > 0 && mailHas(s, met.Name) {
					out = append(out, wrap(fmt.Sprintf("%s (%s %s), %s: %s", hereOn(side.set), side.b.Workload, result.FormatParams(side.b.Params), met.Name, metricFigures(side.b, met)), "  ")...)
				}
			}
		}
		// Between the kernels booted here, kdelta's verdict.
		for _, side := range sides[1:] {
			for _, met := range b.Metrics {
				if len(b.Values(met.Name)) == 0 || !mailHas(s, met.Name) {
					continue
				}
				out = append(out, wrap(fmt.Sprintf("here, %s vs %s, %s: %s", variantOf(side.set), variantOf(sides[0].set), met.Name, ourVerdict(sides[0], side, met.Name)), "  ")...)
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

// An ourSide is a benchmark kdelta ran here and the set it is of.
type ourSide struct {
	set *result.Set
	b   *result.Benchmark
}

// ourBenches finds the benchmarks kdelta ran for a command: one per
// kernel booted for it (kdelta vm's sets, a variant each), else the one
// of this machine's run.
func ourBenches(c *mail.Command, ours []*result.Set) []ourSide {
	var out []ourSide
	for _, s := range ours {
		if s.Labels["vm"] == "" {
			continue
		}
		if b := ourBench(c, []*result.Set{s}); b != nil {
			out = append(out, ourSide{s, b})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, s := range ours {
		if b := ourBench(c, []*result.Set{s}); b != nil && b == ourBench(c, ours) {
			return []ourSide{{s, b}}
		}
	}
	return nil
}

// hereOn says where a figure of ours was measured: this machine, or a
// kernel booted in qemu as a variant, with the mail's variant it stands
// for.
func hereOn(s *result.Set) string {
	if s.Labels["vm"] == "" {
		return "here"
	}
	return "here on " + variantOf(s)
}

func variantOf(s *result.Set) string {
	v := "kernel " + s.Labels["kernel"] + " (" + s.Labels["variant"]
	if mv := s.Labels["mail_variant"]; mv != "" {
		v += ", the mail's " + strconv.Quote(mv)
	}
	return v + ")"
}

// ourVerdict is kdelta's verdict between two kernels booted here, as
// compare judges it: the design and the noise it rests on named.
func ourVerdict(a, b ourSide, metric string) string {
	cmp, err := compare.MetricIn(a.set, a.b, b.set, b.b, metric, compare.Options{})
	if err != nil {
		return err.Error()
	}
	if cmp.A.N <= 1 || cmp.B.N <= 1 || math.IsNaN(cmp.P) {
		return fmt.Sprintf("change %+.1f%%, one run a side: figures, no test", 100*cmp.Change)
	}
	v := fmt.Sprintf("%s, change %+.1f%% (n=%d vs %d, p=%.2g", cmp.Verdict.Words(), 100*cmp.Change, cmp.A.N, cmp.B.N, cmp.P)
	if n := cmp.Design.Noise.Assumption(); n != "" {
		v += "; " + n
	} else if cmp.Design.Noise.Known() {
		v += fmt.Sprintf("; session noise ±%.1f%%", 100*cmp.Design.Noise.SD)
	}
	v += ")"
	if a.set.Labels["accel"] == "tcg" || b.set.Labels["accel"] == "tcg" {
		v += "; emulated (TCG): not the hardware's timing"
	}
	return v
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
