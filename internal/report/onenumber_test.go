package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/explain"
	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestOneNumberPerChange is issue 34's acceptance 7: for one pair (the
// golden sets' rcu latency, seed mail 002's tables), the change that
// compare's verdict line, its headline, explain, the HTML page and kdelta
// series of the two builds print is one number, and the figures printed
// beside it are the centres it relates: their ratio is the change. In the
// series the step's marker carries no figure of its own (the change
// point's segment means once stood there beside the pair's change) and
// the verdict of the line the series ends with.
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

// seriesOfPair is kdelta series of the golden pair as two builds.
func seriesOfPair(t *testing.T) string {
	t.Helper()
	var sets []*result.Set
	for i, f := range []string{"testdata/compare/a.json", "testdata/compare/b.json"} {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		s.Labels = map[string]string{"kernel": []string{"6.1.0-55-cloud-amd64", "6.1.0-56-cloud-amd64"}[i]}
		sets = append(sets, s)
	}
	var b bytes.Buffer
	hs, err := history.Across(sets, "kernel", stats.DefaultChangePointOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSeries(&b, hs, sets, stats.DefaultChangePointOptions()); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOneNumberPerChangeSeries is the series half of
// TestOneNumberPerChange: every step marker of the golden pair's series
// (rcu, and syscall's +5%, a change point the session noise leaves
// inconclusive) prints no figure, and its verdict is the one of the line
// the series ends with, which prints compare's change for the pair.
func TestOneNumberPerChangeSeries(t *testing.T) {
	out := seriesOfPair(t)
	r := loadPair(t, nil)
	markers := 0
	for _, row := range r.Rows {
		if !row.Primary {
			continue
		}
		c := row.Vs[0]
		end := row.Workload + ":" + row.Params + " " + row.Metric.Name + ": 6.1.0-56-cloud-amd64 vs 6.1.0-55-cloud-amd64: " + Pct(c.Change) + " "
		if !strings.Contains(out, "\n"+end) {
			t.Errorf("series does not print compare's change %s for %s:\n%s", Pct(c.Change), row.Workload, out)
		}
		// The table of this workload: from its title to the next blank line.
		at := strings.Index(out, row.Workload+"  ")
		if at < 0 {
			t.Fatalf("no history of %s:\n%s", row.Workload, out)
		}
		table, _, _ := strings.Cut(out[at:], "\n\n")
		for _, l := range strings.Split(table, "\n") {
			_, m, ok := strings.Cut(l, "<< step")
			if !ok {
				continue
			}
			markers++
			if m != ": "+VerdictText(c) {
				t.Errorf("%s: marker %q, want the verdict the series ends with, %q", row.Workload, m, ": "+VerdictText(c))
			}
			if strings.Contains(m, "%") {
				t.Errorf("%s: marker %q prints a figure beside compare's %s", row.Workload, m, Pct(c.Change))
			}
		}
	}
	if markers != 2 {
		t.Errorf("%d step markers, want 2 (syscall and rcu):\n%s", markers, out)
	}
}
