package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/explain"
)

// TestOneNumberPerChange is issue 34's acceptance 7: for one pair (the
// golden sets' rcu latency, seed mail 002's tables), the change that
// compare's verdict line, its headline, explain and the HTML page print is
// one number, and the figures printed beside it are the centres it
// relates: their ratio is the change.
func TestOneNumberPerChange(t *testing.T) {
	r := loadPair(t, nil)
	var row = -1
	for i, rw := range r.Rows {
		if rw.Workload == "rcu" && rw.Metric.Name == "mean" {
			row = i
		}
	}
	if row < 0 {
		t.Fatal("no rcu mean row")
	}
	c := r.Rows[row].Vs[0]
	if c.Centre == "" || math.Abs(c.Centres[1]/c.Centres[0]-1-c.Change) > 1e-12 {
		t.Fatalf("centres %v (%s) do not make the change %v", c.Centres, c.Centre, c.Change)
	}
	pct := Pct(c.Change) // "-37.8%"
	var text, html, exp bytes.Buffer
	if err := WriteCompare(&text, r, "text"); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompare(&html, r, HTMLFormat); err != nil {
		t.Fatal(err)
	}
	rep, err := explain.Explain(r.Inputs[0], r.Inputs[1], explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteExplain(&exp, rep, "text"); err != nil {
		t.Fatal(err)
	}
	flat := func(b bytes.Buffer) string { return strings.Join(strings.Fields(b.String()), " ") }
	for what, out := range map[string]string{
		"compare's verdict line": flat(text),
		"the HTML page":          flat(html),
		"explain":                flat(exp),
	} {
		if !strings.Contains(out, pct) && !strings.Contains(out, strings.TrimPrefix(pct, "-")) {
			t.Errorf("%s does not print the change %s", what, pct)
		}
	}
	// The headline and explain's sentence: the centres and the change.
	head := fmt.Sprintf("%s -> %s (%.0f%% improvement)", mailNum(c.Centres[0], "ms"), mailNum(c.Centres[1], "ms"), -100*c.Change)
	if !strings.Contains(flat(text), head) {
		t.Errorf("headline lacks %q", head)
	}
	sentence := fmt.Sprintf("mean %s -> %s (%.1f%% improvement; %s)", WithUnit(c.Centres[0], "ms"), WithUnit(c.Centres[1], "ms"), -100*c.Change, c.Centre)
	if !strings.Contains(flat(exp), sentence) {
		t.Errorf("explain lacks %q:\n%s", sentence, exp.String())
	}
}
