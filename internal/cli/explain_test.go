package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestExplainKnobPair explains a real pair made here: the rcu workload
// under rcu_normal_wake_from_gp 1 and 0 through ab, profiles on. The
// report must name the knob as the setup difference, give the latency's
// verdict in the seed mails' words, compare the runs' counters, diff the
// profiles, and fit a mail's 72 columns.
func TestExplainKnobPair(t *testing.T) {
	was := liveKnob(t, wakeKnob)
	testenv.NormalGracePeriods(t) // the knob moves only normal grace periods
	dir := t.TempDir()
	prefix := filepath.Join(dir, "wake")
	code, _, stderr := runKdelta("ab", "--variant", "on:"+wakeKnob+"=1", "--variant", "off:"+wakeKnob+"=0",
		"-r", "5", "--profile", "--no-store", "-o", prefix, "--", "rcu:calls=20")
	if code != 0 {
		t.Fatalf("ab: exit %d: %s", code, stderr)
	}
	if now := knobValue(t, wakeKnob); now != was {
		t.Errorf("%s is %s after ab, was %s", wakeKnob, now, was)
	}
	code, out, stderr := runKdelta("explain", prefix+"-on.json", prefix+"-off.json")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"! rcutree.rcu_normal_wake_from_gp: 1 -> 0",      // the knob, as the setup difference
		"rcu callers=1,calls=20: mean ",                  // the latency's verdict sentence
		"= preempt.mode: same",                           // what reviewers ask, said
		"context-switches/op",                            // the counters, compared
		"voluntary-ctxsw/op",                             // and rusage's split
		"the symbols whose share of the samples changed", // the profile diff
		"interleaved in 1 session",                       // the design
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	// The verdict on mean latency is one the comparison gave: its words
	// carry it (regression, or the size with "inconclusive"), the centre
	// it names after it.
	if !strings.Contains(flat, "% regression)") && !strings.Contains(flat, "% regression;") && !strings.Contains(flat, ", inconclusive") {
		t.Errorf("the mean's sentence carries no verdict:\n%s", out)
	}
	// The top symbol's annotation, recorded with the profiles, or why not.
	if !strings.Contains(flat, "the lines whose share of its samples changed most") && !strings.Contains(flat, "no annotated instructions") {
		t.Errorf("explain says nothing of the top symbol's instructions:\n%s", out)
	}
	t.Logf("explain:\n%s", out)
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 72 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	// A bad format is one line and exit 2, nothing on stdout.
	if code, out, stderr := runKdelta("explain", prefix+"-on.json", prefix+"-off.json", "--format", "pdf"); code != 2 || out != "" || !strings.Contains(stderr, `unknown format "pdf"`) {
		t.Errorf("--format pdf: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
