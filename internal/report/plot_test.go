package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/report"
)

// TestPlotsGolden draws seed mail 002's two tables as text strip plots,
// for compare and for show, against testdata/plot/.
func TestPlotsGolden(t *testing.T) {
	a, b := importSeed(t, "seed-002-baseline.md"), importSeed(t, "seed-002-with-fix.md")
	r, err := compare.Compare([]compare.Input{{Name: "baseline", Set: a}, {Name: "with fix", Set: b}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	report.WriteComparePlots(&out, r)
	golden.Check(t, "plot/compare-seed-002.txt", out.Bytes())

	// Checked apart from the golden, so that -update cannot hide it: the
	// baseline's mean line marks runs 5 and 8 (8.695, 8.050) as outliers,
	// at the low end, ten columns or more below the other eight, which lie
	// within five.
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 7 || !strings.HasPrefix(lines[3], "table  mean") {
		t.Fatalf("plot:\n%s", out.String())
	}
	mean := lines[5]
	last := strings.LastIndexByte(mean, 'o')
	if strings.Count(mean, "o") != 2 || strings.IndexAny(mean, ".:#|") < last+10 || strings.LastIndexAny(mean, ".:#|")-strings.IndexAny(mean, ".:#|") > 5 {
		t.Errorf("the baseline's line %q: want two outliers together, the other runs far above", mean)
	}
	out.Reset()
	report.WriteShowPlots(&out, a)
	golden.Check(t, "plot/show-seed-002.txt", out.Bytes())
}
