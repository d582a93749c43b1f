package compare

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestCompareFigures compares the two variants of seed mail 002's SMT
// table, one value per SMT mode each: the change is the ratio of the
// values, with no test (no p, no interval), and the verdict claims
// nothing; a side of several runs is still tested.
func TestCompareFigures(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-002-smt.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := result.ImportSets(path, data, "")
	if err != nil || len(sets) != 2 {
		t.Fatalf("%d sets, %v", len(sets), err)
	}
	with, without := sets[0], sets[1]
	r, err := Compare([]Input{{"without", without}, {"with", with}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 {
		t.Fatalf("%d rows, want one per SMT mode", len(r.Rows))
	}
	for _, row := range r.Rows {
		a, b := row.Sides[0].Values[0], row.Sides[1].Values[0]
		c := row.Vs[0]
		if !row.Figures(0) || c.Change != b/a-1 || !math.IsNaN(c.P) || !math.IsNaN(c.CI[0]) || !math.IsNaN(c.CI[1]) {
			t.Errorf("%s: figures %v, change %v (want %v), p %v, CI %v", row.Params, row.Figures(0), c.Change, b/a-1, c.P, c.CI)
		}
		if c.Verdict != stats.Inconclusive || c.NeedRuns != 0 || len(c.Warnings) != 0 || c.Options.Alpha == 0 {
			t.Errorf("%s: verdict %s, need %d runs, warnings %q, options %+v", row.Params, c.Verdict, c.NeedRuns, c.Warnings, c.Options)
		}
	}

	// One value against five runs is a test, not figures.
	r, err = Compare([]Input{{"a", set(nil, nil, 100)}, {"b", set(nil, nil, 120, 121, 119, 120, 122)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows[0].Figures(0) || math.IsNaN(r.Rows[0].Vs[0].P) {
		t.Errorf("1 vs 5 runs compared as figures: %+v", r.Rows[0].Vs[0])
	}
}
