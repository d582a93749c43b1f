package doctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	page := "# A page\n\n<!-- example two-steps shape root input a.md b.md -->\n```console\n" +
		"$ kdelta import a.md -o a.json\n$ kdelta compare a.json b.md\nB vs A: -37.8% p<0.001 improved\n```\n" +
		"\n<!-- example built tail by TestSeriesBuilt -->\n```\n$ kdelta series\nstep at commit 38bf90e78b35\n```\n"
	p := filepath.Join(t.TempDir(), "p.md")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	exs, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 {
		t.Fatalf("%d examples, want 2", len(exs))
	}
	a, b := exs[0], exs[1]
	if a.Name != "two-steps" || !a.Shape || !a.Root || a.Tail || a.Line != 3 || strings.Join(a.Inputs, " ") != "a.md b.md" || len(a.Steps) != 2 {
		t.Errorf("first example read as %+v", a)
	}
	if a.Steps[0].Out != "" || a.Steps[1].Out != "B vs A: -37.8% p<0.001 improved\n" {
		t.Errorf("outputs %q", a.Steps)
	}
	if b.By != "TestSeriesBuilt" || !b.Tail || b.Shape {
		t.Errorf("second example read as %+v", b)
	}
	// Another run's figures match a shape; other words do not.
	if d := a.Match(1, "B vs A: +4.1% p=0.004 improved\n"); d != "" {
		t.Errorf("other figures do not match the shape: %s", d)
	}
	if d := a.Match(1, "B vs A: +4.1% p=0.004 regressed\n"); d == "" {
		t.Error("another verdict matches the shape")
	}
	// A tail example matches the output's last lines.
	if d := b.Match(0, "building\nbooting\nstep at commit 38bf90e78b35\n"); d != "" {
		t.Errorf("tail: %s", d)
	}
	if d := b.Match(0, "step at commit 38bf90e78b36\n"); d == "" {
		t.Error("an exact example matches another hash")
	}
}

func TestLines(t *testing.T) {
	ex := Example{Shape: true, Lines: true, Steps: []Step{{Cmd: "kdelta ab", Out: "rcu\n...\n  B vs A: +26894% regressed\n...\n"}}}
	if d := ex.Match(0, "rcu\n  warning: A: 2 outliers\n  B vs A: +3% regressed\ngeomean\n"); d != "" {
		t.Errorf("lines in order with others between: %s", d)
	}
	if d := ex.Match(0, "  B vs A: +3% regressed\nrcu\n"); d == "" {
		t.Error("lines out of order match")
	}
	if d := ex.Match(0, "rcu\n  B vs A: +3% improved\n"); d == "" {
		t.Error("a line kdelta did not print matches")
	}
}

func TestReadRefuses(t *testing.T) {
	for _, page := range []string{
		"<!-- example x -->\nno block\n",
		"<!-- example x loud -->\n```\n$ kdelta list\n```\n",
		"<!-- example x -->\n```\noutput first\n```\n",
		"<!-- example x -->\n```\n$ kdelta list\n",
		"<!-- example x by -->\n```\n$ kdelta list\n```\n",
		"<!-- example X -->\n```\n$ kdelta list\n```\n",
	} {
		p := filepath.Join(t.TempDir(), "p.md")
		if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), p+":1:") {
			t.Errorf("page %q: %v, want an error naming line 1", page, err)
		}
	}
}

func TestMask(t *testing.T) {
	for _, c := range [][2]string{
		{"ns/call  9  1,415 ± 1,379 ns  (97.4%) ±10.0%", "ns/call N N ± N ns (N%) N%"},
		{"#4 38bf90e78b35  9  21,571  +2017%", "#N H N N N%"},
		{"run 20261205T182700", "run NTN"},
		{"\n  a  \n\n b\n", "a\nb"},
	} {
		if got := Mask(c[0]); got != c[1] {
			t.Errorf("Mask(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
