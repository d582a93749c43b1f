package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/mail"
)

// seedAnalysis reads seed mail NNN from ../shared/context, where the
// project's seed mails lie (they are third-party text: read in place, not
// copied).
func seedAnalysis(t *testing.T, n string) *mail.Analysis {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "context", n+"_*.txt"))
	if len(files) != 1 {
		t.Fatalf("seed %s: %d files match ../shared/context/%s_*.txt", n, len(files), n)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	a, err := mail.Analyze(filepath.Base(files[0]), data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReadingSeeds checks the reading of each seed mail against its
// golden file: commands found and their mapping, outputs and tables per
// variant, claims recomputed, lines not read.
func TestReadingSeeds(t *testing.T) {
	for _, n := range []string{"000", "001", "002", "003", "004"} {
		t.Run(n, func(t *testing.T) {
			var b bytes.Buffer
			Reading(&b, seedAnalysis(t, n))
			golden.Check(t, "reading-seed-"+n+".txt", b.Bytes())
		})
	}
}

// claimOf returns the first claim of a whose text holds sub.
func claimOf(t *testing.T, a *mail.Analysis, sub string) *mail.Claim {
	t.Helper()
	for _, s := range a.Sections {
		for _, c := range s.Claims {
			if strings.Contains(c.Text, sub) {
				return c
			}
		}
	}
	t.Fatalf("no claim holds %q", sub)
	return nil
}

// TestReadingSeedClaims checks the verdicts apart from the goldens, so
// that -update cannot hide a wrong one: each figure is recomputed here
// from the mail's own numbers.
func TestReadingSeedClaims(t *testing.T) {
	// Seed 002: the mean of the ten run means, 9.747 -> 6.042 ms, is the
	// 38% the summary states, and ten runs a side make it a test.
	c := claimOf(t, seedAnalysis(t, "002"), "Mean latency")
	var table *mail.Check
	for i := range c.Checks {
		if strings.Contains(c.Checks[i].What, "mean") {
			table = &c.Checks[i]
		}
	}
	base := (10.088 + 10.064 + 10.051 + 10.125 + 8.695 + 10.157 + 10.102 + 8.050 + 10.059 + 10.077) / 10
	fix := (6.027 + 6.032 + 6.010 + 6.076 + 6.084 + 6.034 + 6.051 + 6.057 + 6.016 + 6.036) / 10
	if table == nil || !table.Agrees || math.Abs(table.Implied-100*(1-fix/base)) > 1e-9 || !strings.HasPrefix(table.Test, "improved") {
		t.Errorf("seed 002 mean latency: %+v, want an agreeing improvement of %.3f%% tested as improved", table, 100*(1-fix/base))
	}
	// Seed 001: 3.65171 and 3.60163 s, each ± 0.18% over 10 runs, differ
	// by 1.4%, beyond their spreads, whatever "identical" says.
	c = claimOf(t, seedAnalysis(t, "001"), "identical to CONFIG_PREEMPT")
	found := false
	for _, k := range c.Checks {
		if strings.Contains(k.What, "elapsed") {
			found = true
			if !k.Differ || math.Abs(k.Change-100*(3.60163/3.65171-1)) > 1e-6 {
				t.Errorf("seed 001 elapsed: %+v, want a change of %.3f%% beyond the spreads", k, 100*(3.60163/3.65171-1))
			}
		}
	}
	if !found || !strings.Contains(c.Verdict, "differ beyond their spreads") {
		t.Errorf("seed 001: verdict %q", c.Verdict)
	}
	// Seed 004: one figure a side is compared as figures, never tested.
	c = claimOf(t, seedAnalysis(t, "004"), "37% more time")
	if len(c.Checks) == 0 || c.Checks[0].Test != "figures, no test" || !c.Checks[0].Agrees || math.Abs(c.Checks[0].Change-100*(3479.54/2546.71-1)) > 1e-9 {
		t.Errorf("seed 004 null_syscall: %+v", c.Checks)
	}
	c = claimOf(t, seedAnalysis(t, "004"), "0,8% less")
	if len(c.Checks) != 1 || !c.Checks[0].Agrees || c.Stated != -0.8 {
		t.Errorf("seed 004 context switches: stated %v, %+v", c.Stated, c.Checks)
	}
}

// TestReplyWidth checks that every line of a reply draft fits 72 columns
// and that its headers answer the mail.
func TestReplyWidth(t *testing.T) {
	a := seedAnalysis(t, "004")
	var b bytes.Buffer
	Reply(&b, a, nil)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		if n := len([]rune(l)); n > replyWidth {
			t.Errorf("line %d: %d columns: %q", i+1, n, l)
		}
	}
	// Headers longer than a line are folded, as RFC 5322 folds them.
	head := strings.ReplaceAll(strings.SplitN(b.String(), "\n\n", 2)[0], "\n ", " ")
	for _, w := range []string{
		"Subject: Re: [PATCH v13 00/10] powerpc: Switch to CONFIG_THREAD_INFO_IN_TASK\n",
		"In-Reply-To: <9b4dab64-6a6b-a599-4676-bf891473ada7@c-s.fr>\n",
		"References: <87y37ax3ru.fsf@concordia.ellerman.id.au> <9b4dab64-6a6b-a599-4676-bf891473ada7@c-s.fr>",
	} {
		if !strings.Contains(head+"\n", w) {
			t.Errorf("headers lack %q:\n%s", w, head)
		}
	}
	if !strings.Contains(b.String(), ">>> So 0,8% less context switches per second and 37% more time for") {
		t.Errorf("the claim is not quoted:\n%s", b.String())
	}
}
