package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/mail"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// Reading writes what kdelta found in a mail or a thread, message by
// message and quote level by level: the commands and what kdelta runs for
// each, the outputs and tables read per variant, the claims recomputed,
// the setup stated, and every line that looked like data and could not be
// read, with what was expected there.
func Reading(w io.Writer, a *mail.Analysis) {
	for _, m := range a.Messages {
		fmt.Fprintf(w, "message %d: %s\n", m.Index+1, OrDash(m.Subject))
		if m.From != "" {
			fmt.Fprintf(w, "  from: %s\n", m.From)
		}
		if m.ID != "" {
			fmt.Fprintf(w, "  message-id: %s\n", m.ID)
		}
		if m.InReplyTo != "" {
			fmt.Fprintf(w, "  in-reply-to: %s\n", m.InReplyTo)
		}
		if m.Flattened {
			fmt.Fprintf(w, "  (its line breaks were lost: lines restored at its quote marks, and counted so)\n")
		}
		for _, s := range a.Sections {
			if s.Msg != m || len(s.Commands)+len(s.Outputs)+len(s.Claims)+len(s.Unread)+len(s.Setup) == 0 {
				continue
			}
			mailSection(w, s)
		}
	}
}

func mailLevelName(s *mail.Section) string {
	name := "the mail's own text"
	if s.Level > 0 {
		name = fmt.Sprintf("quote level %d (%s)", s.Level, strings.Repeat(">", s.Level))
	}
	if s.Author != "" {
		name += ", by " + s.Author
	}
	return name
}

func mailSection(w io.Writer, s *mail.Section) {
	fmt.Fprintf(w, "\n  %s\n", mailLevelName(s))
	if len(s.Commands) > 0 {
		fmt.Fprintf(w, "    commands:\n")
		for _, c := range s.Commands {
			how := "shown"
			if c.Prose {
				how = "described"
			}
			fmt.Fprintf(w, "      line %d (%s", c.Line, how)
			if c.Variant != "" {
				fmt.Fprintf(w, ", %s", c.Variant)
			}
			fmt.Fprintf(w, "): %s\n", c.Text)
			fmt.Fprintf(w, "        -> %s\n", Mapping(c.Map))
			for _, n := range c.Map.Notes {
				fmt.Fprintf(w, "           %s\n", n)
			}
		}
	}
	if len(s.Outputs) > 0 {
		fmt.Fprintf(w, "    outputs and tables:\n")
		for _, o := range s.Outputs {
			fmt.Fprintf(w, "      lines %d-%d, read as %s", o.Line, o.End, o.Format)
			if o.Variant != "" {
				fmt.Fprintf(w, ", variant %q", o.Variant)
			}
			fmt.Fprintln(w)
			for _, st := range o.Sets {
				outputSet(w, st)
			}
		}
	}
	if len(s.Claims) > 0 {
		fmt.Fprintf(w, "    claims:\n")
		for _, c := range s.Claims {
			fmt.Fprintf(w, "      line %d: %q\n", c.Line, c.Text)
			if c.Kind == mail.ClaimTable {
				fmt.Fprintf(w, "        %s\n", c.Verdict)
				continue
			}
			for _, k := range c.Checks {
				fmt.Fprintf(w, "        %s: %s\n", k.What, checkLine(c, k))
				fmt.Fprintf(w, "          %s\n", k.Test)
			}
			fmt.Fprintf(w, "        => %s\n", c.Verdict)
		}
	}
	if len(s.Setup) > 0 {
		fmt.Fprintf(w, "    setup stated:\n")
		for _, l := range s.Setup {
			fmt.Fprintf(w, "      line %d: %s\n", l.N, strings.TrimSpace(l.Text))
		}
	}
	if len(s.Unread) > 0 {
		fmt.Fprintf(w, "    not read:\n")
		for _, p := range s.Unread {
			fmt.Fprintf(w, "      line %d: %s (%q)\n", p.Line, p.Msg, p.Text)
		}
	}
}

// checkLine says a recomputation: the change the figures give, as the
// claim counts it.
func checkLine(c *mail.Claim, k mail.Check) string {
	if math.IsNaN(k.Change) {
		return "cannot recompute"
	}
	if c.Kind == mail.ClaimSame {
		return fmt.Sprintf("change %+.2f%%", k.Change)
	}
	word := "change"
	if c.Better {
		word = "improvement"
	}
	ok := "agrees"
	if !k.Agrees {
		ok = "DISAGREES"
	}
	return fmt.Sprintf("%s %+.*f%% (the mail: %+.*f%%), %s", word, c.Decimals+1, k.Implied, c.Decimals, c.Stated, ok)
}

// Mapping says what kdelta runs for a command, in kdelta run's words.
func Mapping(m mail.Mapping) string {
	if m.Cannot != "" {
		return "cannot map: " + m.Cannot
	}
	parts := []string{"kdelta run " + m.Spec}
	if m.Repeat > 0 {
		parts = append(parts, fmt.Sprintf("-r %d", m.Repeat))
	}
	if m.FIFO > 0 {
		parts = append(parts, fmt.Sprintf("--fifo %d", m.FIFO))
	}
	if m.CPUs != "" {
		parts = append(parts, "--cpus "+m.CPUs)
	}
	if m.Events != "" {
		parts = append(parts, "-e "+m.Events)
	}
	if m.SystemWide {
		parts = append(parts, "-a")
	}
	for _, k := range m.Set {
		parts = append(parts, "--set "+k)
	}
	return strings.Join(parts, " ")
}

// outputSet writes one imported set: per benchmark, each metric's n,
// mean and spread, from the runs or the summary.
func outputSet(w io.Writer, st *result.Set) {
	v := st.Labels[result.VariantParam]
	for _, b := range st.Benchmarks {
		name := b.Workload
		if p := result.FormatParams(b.Params); p != "" {
			name += " " + p
		}
		if v != "" {
			name = "[" + v + "] " + name
		}
		fmt.Fprintf(w, "        %s\n", name)
		for _, m := range b.Metrics {
			fmt.Fprintf(w, "          %-22s %s\n", m.Name, metricFigures(b, m))
		}
	}
	ws := append([]string(nil), st.Warnings...)
	sort.Strings(ws)
	for _, x := range ws {
		fmt.Fprintf(w, "        note: %s\n", x)
	}
}

func metricFigures(b *result.Benchmark, m result.Metric) string {
	if vs := b.Values(m.Name); len(vs) > 0 {
		s := stats.Summarize(vs)
		if len(vs) == 1 {
			return fmt.Sprintf("%s %s (one figure)", Num(vs[0]), m.Unit)
		}
		return fmt.Sprintf("n=%d mean %s ± %s %s (CV %.2f%%), min %s max %s", s.N, Num(s.Mean), Num(s.Stddev), m.Unit, s.CV, Num(s.Min), Num(s.Max))
	}
	if s, ok := b.Summaries[m.Name]; ok {
		n := "n unknown"
		if s.N > 0 {
			n = fmt.Sprintf("n=%d", s.N)
		}
		return fmt.Sprintf("%s mean %s ± %s (stderr) %s", n, Num(s.Mean), Num(s.StdErr), m.Unit)
	}
	return "no figures"
}
