package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/explain"
	"github.com/kdelta/kdelta/internal/result"
)

// TestEmulatedOnTheVerdictLine: a verdict measured under TCG emulation
// carries the caveat on its own line, in compare's text, markdown and
// HTML and in explain, not only among the warnings at the end (issue 34,
// scope 7). The golden pair (seed mail 002's tables as rcu runs) with
// the second set marked as kdelta vm marks a boot under TCG.
func TestEmulatedOnTheVerdictLine(t *testing.T) {
	var sets []*result.Set
	for i, f := range []string{"testdata/compare/a.json", "testdata/compare/b.json"} {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			s.Warnings = append(s.Warnings, "timings emulated under TCG (qemu without KVM): compare them only with other TCG results; they do not measure the hardware")
		}
		sets = append(sets, s)
	}
	ins := []compare.Input{{Name: "a", Set: sets[0]}, {Name: "b", Set: sets[1]}}
	r, err := compare.Compare(ins, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		if !row.Vs[0].Emulated {
			t.Errorf("%s %s: the comparison does not know it was emulated", row.Workload, row.Metric.Name)
		}
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, format := range []string{"text", "markdown", HTMLFormat} {
		var b bytes.Buffer
		if err := WriteCompare(&b, r, format); err != nil {
			t.Fatal(err)
		}
		out := flat(b.String())
		if format == HTMLFormat {
			out = strings.ReplaceAll(out, "&#39;", "'")
		}
		// Every verdict: as many caveats as verdict lines.
		if n, want := len(regexp.MustCompile(`(?m)^\s+B vs A: `).FindAllString(b.String(), -1)), strings.Count(out, EmulatedText); format == "text" && n != want || want < len(r.Rows) {
			t.Errorf("%s: %d verdicts, %d say %q:\n%s", format, max(n, len(r.Rows)), want, EmulatedText, b.String())
		}
		if format == "text" && !strings.Contains(out, "inconclusive: one session each") && !strings.Contains(out, ", "+EmulatedText+" (") {
			t.Errorf("text: the caveat is not between the verdict and its design:\n%s", b.String())
		}
	}
	rep, err := explain.Explain(ins[0], ins[1], explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteExplain(&b, rep, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flat(b.String()), EmulatedText) {
		t.Errorf("explain does not say the verdict was emulated:\n%s", b.String())
	}
}
