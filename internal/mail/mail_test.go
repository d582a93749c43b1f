package mail

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func analyzeFile(t *testing.T, name string) *Analysis {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// times returns the hackbench times read at one level of one message.
func times(a *Analysis, msg, level int) []float64 {
	var out []float64
	for _, s := range a.Sections {
		if s.Msg.Index != msg || s.Level != level {
			continue
		}
		for _, o := range s.Outputs {
			for _, st := range o.Sets {
				for _, b := range st.Benchmarks {
					out = append(out, b.Values("time")...)
				}
			}
		}
	}
	return out
}

// TestThreadLevels reads an mbox thread of three mails, each quoting the
// one before: every level's numbers stay with their level and author.
func TestThreadLevels(t *testing.T) {
	a := analyzeFile(t, "thread.mbox")
	if len(a.Messages) != 3 {
		t.Fatalf("%d messages, want 3", len(a.Messages))
	}
	m := a.Messages[2]
	if m.ID != "<c3@example.org>" || m.InReplyTo != "<b2@example.org>" || len(m.References) != 2 || m.Subject != "Re: [PATCH] sched: shorter wakeup path" || m.From != "Carol <carol@example.org>" {
		t.Errorf("message 3 headers: %+v", m)
	}
	cases := []struct {
		msg, level int
		want       []float64
	}{
		{0, 0, []float64{1.5, 1.2}},
		{1, 0, []float64{2.7}},
		{1, 1, []float64{1.5}},
		{2, 0, []float64{0.9}},
		{2, 1, []float64{2.7}},
		{2, 2, []float64{1.5}},
	}
	for _, c := range cases {
		got := times(a, c.msg, c.level)
		if len(got) != len(c.want) {
			t.Errorf("message %d level %d: times %v, want %v", c.msg+1, c.level, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("message %d level %d: times %v, want %v", c.msg+1, c.level, got, c.want)
			}
		}
	}
	for _, s := range a.Sections {
		if s.Msg.Index == 2 && s.Level == 2 && s.Author != "Alice" {
			t.Errorf("message 3, level 2: author %q, want Alice", s.Author)
		}
	}
	// The report's own claim, recomputed from its Before and After.
	c := a.Sections[0].Claims
	if len(c) != 1 || len(c[0].Checks) != 1 || !c[0].Checks[0].Agrees || math.Abs(c[0].Checks[0].Implied-20) > 1e-9 || c[0].Checks[0].Test != "figures, no test" {
		t.Errorf("message 1 claim: %+v", c)
	}
}

// TestQuotedPrintable reads a multipart mail whose quoted-printable body
// breaks numbers with soft line breaks.
func TestQuotedPrintable(t *testing.T) {
	a := analyzeFile(t, "qp.eml")
	if a.Messages[0].Subject != "perf stat résultats" {
		t.Errorf("subject %q", a.Messages[0].Subject)
	}
	o := a.Sections[0].Outputs
	if len(o) != 1 || o[0].Variant != "With the patch" {
		t.Fatalf("outputs %+v", o)
	}
	b := o[0].Sets[0].Benchmarks[0]
	if s := b.Summaries["elapsed"]; s.Mean != 3.65171 || s.N != 5 {
		t.Errorf("elapsed %+v, want 3.65171 over 5 runs", s)
	}
	if s := b.Summaries["context-switches"]; s.Mean != 3080508 {
		t.Errorf("context-switches %+v", s)
	}
}

// TestUnreadTable: a table kdelta cannot read is one line naming its
// line and what was expected there.
func TestUnreadTable(t *testing.T) {
	a := analyzeFile(t, "unread.txt")
	var ps []Problem
	for _, s := range a.Sections {
		ps = append(ps, s.Unread...)
	}
	if len(ps) != 1 || ps[0].Line != 6 || !strings.Contains(ps[0].Msg, "expected") || ps[0].Text != "kernel    ops/s" {
		t.Errorf("problems %+v, want one at line 6 (of the file) saying what was expected", ps)
	}
	if !a.Found() {
		t.Error("a mail with an unreadable table found nothing")
	}
	if analyzeFile(t, "nothing.txt").Found() {
		t.Error("a mail of prose found something")
	}
}

// TestFlattened restores the lines of a mail whose breaks were lost, at
// its quote marks.
func TestFlattened(t *testing.T) {
	line := strings.Repeat("word ", 90) + "> Hi, > > Before: > | Run | Mean | > |---|---| > | 1 | 2.0 ms | >> quoted deeper >>> deepest -> arrow"
	msgs, err := Read([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	if !m.Flattened {
		t.Fatal("not seen as flattened")
	}
	var got []string
	for _, l := range m.Lines {
		got = append(got, strings.Repeat(">", l.Level)+"|"+l.Text)
	}
	want := []string{"|" + strings.TrimSpace(strings.Repeat("word ", 90)), ">|Hi,", ">|", ">|Before:", ">|| Run | Mean |", ">||---|---|", ">|| 1 | 2.0 ms |", ">>|quoted deeper", ">>>|deepest -> arrow"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzRead feeds the mail reader and the finder arbitrary input: they
// must not panic, and every line they report must be one of the input's.
func FuzzRead(f *testing.F) {
	for _, n := range []string{"thread.mbox", "qp.eml", "unread.txt", "nothing.txt", "mmtests.txt", "pct.txt", "normalized.txt", "relative.txt", "glued.txt", "spaces.txt", "stressng.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("From x Mon Jan  5 10:00:00 2026\nFrom: a\n\n> > x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Analyze("fuzz", data)
		if err != nil {
			return
		}
		for _, s := range a.Sections {
			for _, p := range s.Unread {
				found := false
				for _, l := range s.Msg.Lines {
					found = found || l.N == p.Line
				}
				if !found {
					t.Fatalf("problem at line %d, which is none of the mail's", p.Line)
				}
			}
		}
	})
}

// FuzzClaims feeds the claim finder arbitrary sentences: no panic, and a
// claim's stated figure is finite.
func FuzzClaims(f *testing.F) {
	for _, s := range []string{
		"Mean latency: 9.75 ms -> 6.04 ms (38% improvement)",
		"So 0,8% less context switches per second and 37% more time for one syscall ?",
		"we see almost identical behaviour as well.",
		"shows only a 2.8% regression:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := &Section{}
		s.prose(paragraph{{N: 1, Text: text}})
		s.checkClaims()
		for _, c := range s.Claims {
			if math.IsNaN(c.Stated) || math.IsInf(c.Stated, 0) {
				t.Fatalf("claim %q: stated %v", c.Text, c.Stated)
			}
		}
	})
}

// Test0Day reads a 0-day "kernel test robot" style report written for
// this test in the public reports' layout: the two commits' means and
// spreads per metric, each %change recomputed, the testcase mapped.
func Test0Day(t *testing.T) {
	a := analyzeFile(t, "0day.txt")
	s := a.Sections[0]
	if len(s.Outputs) != 1 || len(s.Outputs[0].Sets) != 2 {
		t.Fatalf("outputs %+v", s.Outputs)
	}
	base, patched := s.Outputs[0].Sets[0], s.Outputs[0].Sets[1]
	if base.Labels["variant"] != "0123456789" || patched.Labels["variant"] != "abcdef1234" {
		t.Errorf("variants %v %v", base.Labels, patched.Labels)
	}
	want := map[string][2]float64{
		"hackbench.throughput":         {437211, 383434},
		"hackbench.time.elapsed_time":  {41.20, 46.97},
		"perf-stat.i.context-switches": {1.25e8, 1.315e8},
		"perf-stat.overall.cpi":        {3.50, 4.20},
	}
	for m, v := range want {
		if got := base.Benchmarks[0].Summaries[m].Mean; got != v[0] {
			t.Errorf("%s base %v, want %v", m, got, v[0])
		}
		if got := patched.Benchmarks[0].Summaries[m].Mean; got != v[1] {
			t.Errorf("%s patched %v, want %v", m, got, v[1])
		}
	}
	if sd := base.Benchmarks[0].Summaries["hackbench.throughput"].StdErr; math.Abs(sd-437211*0.02) > 1e-6 {
		t.Errorf("throughput spread %v, want 2%% of the mean", sd)
	}
	stated := map[string]float64{"-12.3% hackbench.throughput": -12.3, "+14.0% hackbench.time.elapsed_time": 14.0, "+5.2% perf-stat.i.context-switches": 5.2, "+20.1% perf-stat.overall.cpi": 20.1}
	n := 0
	for _, c := range s.Claims {
		v, ok := stated[c.Text]
		if !ok {
			continue
		}
		n++
		w := want[strings.SplitN(c.Text, " ", 2)[1]]
		if c.Stated != v || len(c.Checks) != 1 || math.Abs(c.Checks[0].Change-100*(w[1]/w[0]-1)) > 1e-9 || c.Checks[0].Test != "a spread without its n: figures, no test" {
			t.Errorf("claim %q: stated %v, checks %+v", c.Text, c.Stated, c.Checks)
		}
		if c.Checks[0].Agrees != (math.Abs(100*(w[1]/w[0]-1)-v) <= 0.15) {
			t.Errorf("claim %q: agrees %v", c.Text, c.Checks[0].Agrees)
		}
	}
	if n != 4 {
		t.Errorf("%d of the 4 %%change claims found", n)
	}
	if len(s.Commands) != 1 || s.Commands[0].Map.Spec != "messaging:mode=process,ipc=pipe" {
		t.Errorf("commands %+v", s.Commands)
	}
	for _, sec := range a.Sections {
		if len(sec.Unread) > 0 {
			t.Errorf("unread %+v", sec.Unread)
		}
	}
}
