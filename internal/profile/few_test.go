package profile

import (
	"math/rand/v2"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// sampled is a whole profile of total samples in which sym drew k.
func sampled(total, k int64, sym string) *result.Profile {
	p := &result.Profile{Event: "cpu-clock", Samples: total}
	p.Symbols = append(p.Symbols, result.ProfileSymbol{Overhead: 100 * float64(total-k) / float64(total), Samples: total - k, Symbol: "main", Kernel: true})
	if k > 0 {
		p.Symbols = append(p.Symbols, result.ProfileSymbol{Overhead: 100 * float64(k) / float64(total), Samples: k, Symbol: sym, Kernel: true})
	}
	return p
}

func binomial(r *rand.Rand, n int64, p float64) int64 {
	var k int64
	for i := int64(0); i < n; i++ {
		if r.Float64() < p {
			k++
		}
	}
	return k
}

// TestTooFewSimulated draws a rare symbol's samples with a fixed seed. A
// symbol of the same share on both sides (of 1,000 and 3,000 samples) is
// called new or gone in at most FewAlpha of the trials, whatever its
// share; one that left B, with 15 samples expected in A, is called gone
// in at least 95% of them. Before MarkFew, a symbol of one expected
// sample was called new or gone in about half of the trials.
func TestTooFewSimulated(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 11))
	const trials = 4000
	ta, tb := int64(1000), int64(3000)
	for _, expect := range []float64{0.3, 1, 2, 4, 8} {
		q := expect / float64(ta)
		called := 0
		for range trials {
			a := Side{Name: "a", Profiles: []*result.Profile{sampled(ta, binomial(r, ta, q), "rare")}}
			b := Side{Name: "b", Profiles: []*result.Profile{sampled(tb, binomial(r, tb, q), "rare")}}
			d, err := Compare(a, b, "share")
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range d.Rows {
				if row.Symbol == "rare" && (row.Mark == MarkNew || row.Mark == MarkGone) {
					called++
				}
			}
		}
		if rate := float64(called) / trials; rate > FewAlpha {
			t.Errorf("same share, %.1f samples expected in A: called new or gone in %.3f of trials; want at most %.2f", expect, rate, FewAlpha)
		}
	}
	gone := 0
	q := 15.0 / float64(ta)
	for range trials {
		a := Side{Name: "a", Profiles: []*result.Profile{sampled(ta, binomial(r, ta, q), "left")}}
		b := Side{Name: "b", Profiles: []*result.Profile{sampled(tb, 0, "left")}}
		d, err := Compare(a, b, "share")
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range d.Rows {
			if row.Symbol == "left" && row.Mark == MarkGone {
				gone++
			}
		}
	}
	if rate := float64(gone) / trials; rate < 0.95 {
		t.Errorf("a symbol of 15 expected samples that left B: called gone in %.3f of trials; want at least 0.95", rate)
	}
}

// TestSideWarningsOnce: a warning every profile of a side carries is said
// once, with how many said it.
func TestSideWarningsOnce(t *testing.T) {
	w := "cycles cannot be sampled here; perf sampled cpu-clock instead"
	p1, p2 := sampled(100, 0, "x"), sampled(100, 0, "x")
	p1.Warnings, p2.Warnings = []string{w, "only in one"}, []string{w}
	sum, _ := Aggregate(Side{Name: "a", Profiles: []*result.Profile{p1, p2}})
	want := []string{w + " (2 of 2 profiles)", "only in one"}
	if len(sum.Warnings) != 2 || sum.Warnings[0] != want[0] || sum.Warnings[1] != want[1] {
		t.Errorf("warnings %q; want %q", sum.Warnings, want)
	}
}
