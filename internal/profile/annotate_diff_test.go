package profile

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func annotationOf(t *testing.T, file string) *Annotation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	as, err := ParseAnnotate(file, b)
	if err != nil {
		t.Fatal(err)
	}
	// The first symbol the text annotates.
	return &Annotation{Ref: file, Benchmark: file, Profiles: 1, ProfileAnnotation: *as[0]}
}

// TestDiffAnnotationsAcrossBuilds lines up perf annotate --stdio of one
// function from two builds of kdelta, where the function sits at another
// address and its calls and jumps name other absolute targets: every
// sampled instruction pairs with its twin, those whose text differs only
// by an address too, and the lines come ranked.
func TestDiffAnnotationsAcrossBuilds(t *testing.T) {
	a, b := annotationOf(t, "annotate-build1.txt"), annotationOf(t, "annotate-build2.txt")
	if a.Symbol != b.Symbol || a.Symbol == "" {
		t.Fatalf("symbols %q and %q", a.Symbol, b.Symbol)
	}
	textsB := map[string]bool{}
	for _, l := range b.Lines {
		textsB[l.Text] = true
	}
	moved := 0
	for _, l := range a.Lines {
		if !l.Source && !textsB[l.Text] {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("the two builds' texts do not differ: not a test of lining up")
	}
	// The same code: at each offset, the two texts are one instruction
	// once addresses are set aside.
	byOff := map[int64]string{}
	for _, l := range b.Lines {
		if !l.Source {
			byOff[l.Offset] = l.Text
		}
	}
	for _, l := range a.Lines {
		if tb, ok := byOff[l.Offset]; !l.Source && (!ok || insnKey(l.Text) != insnKey(tb)) {
			t.Errorf("at %#x: %q and %q are not one instruction", l.Offset, l.Text, tb)
		}
	}
	changes := DiffAnnotations(a, b)
	var sumA, sumB float64
	for i, c := range changes {
		if i > 0 && math.Abs(c.Delta()) > math.Abs(changes[i-1].Delta())+1e-9 {
			t.Errorf("row %d (%+.2f) after %+.2f", i, c.Delta(), changes[i-1].Delta())
		}
		if c.Total {
			continue
		}
		if !c.InA || !c.InB || c.OffsetA != c.OffsetB {
			t.Errorf("%q: in A %v at %#x, in B %v at %#x; the same code should pair at the same offset", c.Text, c.InA, c.OffsetA, c.InB, c.OffsetB)
		}
		sumA += c.PercentA
		sumB += c.PercentB
	}
	if math.Abs(sumA-100) > 1 || math.Abs(sumB-100) > 1 {
		t.Errorf("paired shares add up to %.2f%% and %.2f%%", sumA, sumB)
	}
	t.Logf("%s: %d lines with samples; %d instructions of A whose text moved", a.Symbol, len(changes), moved)
}

// TestDiffAnnotationsSourceLines diffs the seed 003 mail's mm_cid_get()
// with itself: instructions that show no offset pair by source line and
// text, the k-th repeat with the k-th, so nothing changes; each source
// line's total is the sum of its instructions.
func TestDiffAnnotationsSourceLines(t *testing.T) {
	a := annotationOf(t, "annotate-tui-seed003.txt")
	changes := DiffAnnotations(a, a)
	under := map[string]float64{}
	totals := map[string]float64{}
	for _, c := range changes {
		if c.Delta() != 0 || !c.InA || !c.InB || c.OffsetA != c.OffsetB {
			t.Errorf("%+v: a line of the same text changed or was not paired", c)
		}
		if c.Total {
			totals[c.Source] = c.PercentA
		} else {
			under[c.Source] += c.PercentA
		}
	}
	if len(totals) < 2 {
		t.Fatalf("%d source lines with a total", len(totals))
	}
	for src, v := range under {
		if src != "" && math.Abs(totals[src]-v) > 1e-9 {
			t.Errorf("%q: total %.2f, its instructions %.2f", src, totals[src], v)
		}
	}
}
