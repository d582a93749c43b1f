package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// TestCompareFiguresText compares the two imported variants of seed mail
// 002's SMT table as kdelta compare prints them: "31.6% faster" for SMT
// ON and "26.2% faster" for SMT OFF, worked out here from the values the
// mail gives (75.540 s and 51.662 s, 59.933 s and 44.246 s), with no
// spread, interval, p-value or verdict, since one value a side has none.
func TestCompareFiguresText(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-002-smt.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := result.ImportSets(path, data, "")
	if err != nil || len(sets) != 2 {
		t.Fatalf("%d sets, %v", len(sets), err)
	}
	names := compare.Names([]*result.Set{sets[1], sets[0]}, []string{"without.json", "with.json"})
	r, err := compare.Compare([]compare.Input{{Name: names[0], Set: sets[1]}, {Name: names[1], Set: sets[0]}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteCompare(&out, r, "text"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, row := range r.Rows {
		a, b := row.Sides[0].Values[0], row.Sides[1].Values[0]
		want := fmt.Sprintf("B vs A: %.1f%% faster; one value each, no spread to test", 100*(a-b)/a)
		if !strings.Contains(text, want) {
			t.Errorf("%s: no %q in\n%s", row.Params, want, text)
		}
	}
	if !strings.Contains(text, "31.6% faster") || !strings.Contains(text, "A: variant=without-patch (baseline)") {
		t.Errorf("the mail's 31.61%% faster is not what compare says:\n%s", text)
	}
	// The mail's own figure stands beside the computed one, as its claim.
	if !strings.Contains(text, "B's source says: 31.61% faster vs without-patch") {
		t.Errorf("the mail's claim is not shown:\n%s", text)
	}
	if regexp.MustCompile(`p=|inconclusive|± |runs can never|at least 5`).MatchString(text) {
		t.Errorf("a test, a spread or a verdict of single figures:\n%s", text)
	}
}

// TestCompareFiguresMarkdown: the Markdown table of the same comparison
// says the change in words and makes no test.
func TestCompareFiguresMarkdown(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-002-smt.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := result.ImportSets(path, data, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := compare.Compare([]compare.Input{{Name: "without", Set: sets[1]}, {Name: "with", Set: sets[0]}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteCompare(&out, r, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| 31.6% faster | -      | - | single figures, no test |") || strings.Contains(out.String(), "NaN") {
		t.Errorf("markdown:\n%s", out.String())
	}
}

func TestFigureWords(t *testing.T) {
	secs := result.Metric{Name: "time", Unit: "s", Better: result.Lower}
	ops := result.Metric{Name: "ops", Unit: "ops/s", Better: result.Higher}
	for _, tc := range []struct {
		change float64
		m      result.Metric
		want   string
	}{
		{51.662/75.540 - 1, secs, "31.6% faster"},
		{0.25, secs, "25.0% slower"},
		{0, secs, "no change"},
		{70281.0/103207 - 1, ops, "-31.9% (worse)"},
		{0.1, ops, "+10.0% (better)"},
	} {
		if got := FigureWords(tc.change, tc.m); got != tc.want+"; one value each, no spread to test" {
			t.Errorf("FigureWords(%v, %s) = %q, want %q", tc.change, tc.m.Name, got, tc.want)
		}
	}
}

// TestShowClaims shows an imported variant of the SMT table: the mail's
// "31.61% faster" is said as the source's, beside the measured value.
func TestShowClaims(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-002-smt.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := result.ImportSets(path, data, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	Show(&out, sets[0], ShowOptions{})
	if !strings.Contains(out.String(), "  run 1: the source says 31.61% faster vs without-patch\n") {
		t.Errorf("show:\n%s", out.String())
	}
	out.Reset()
	Show(&out, sets[1], ShowOptions{})
	if strings.Contains(out.String(), "the source says") {
		t.Errorf("the baseline variant holds no claim:\n%s", out.String())
	}
}
