package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/store"
)

// TestInfosEscaped: a stored label or kernel holding a newline or an ANSI
// escape (a store kdelta did not write, or one from before --label refused
// them) is printed by results ls escaped, one row per set, and nothing
// raw reaches the terminal (issue 35 point 9).
func TestInfosEscaped(t *testing.T) {
	infos := []store.Info{
		{ID: "20260101T000000-aaaaaaaaaaaa", Created: time.Unix(0, 0), Kernel: "6.1\x1b]0;owned\a", Runs: 5, Complete: true, Workload: []string{"table"},
			Labels: map[string]string{"evil": "a\nb\x1b[31mRED", "k\x1b[2J": "v", "plain": "x y"}},
		{ID: "20260101T000001-bbbbbbbbbbbb", Created: time.Unix(1, 0), Runs: 3, Complete: true, Workload: []string{"table"},
			Labels: map[string]string{"title": "ünïcode ok"}},
	}
	var b bytes.Buffer
	WriteInfos(&b, infos)
	out := b.String()
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("%d lines, want a header and one row per set:\n%s", n, out)
	}
	if strings.ContainsAny(out, "\x1b\a") {
		t.Errorf("raw control characters reach the terminal: %q", out)
	}
	for _, want := range []string{`evil=a\nb\x1b[31mRED`, `k\x1b[2J=v`, "plain=x y", `6.1\x1b]0;owned\a`, "title=ünïcode ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
