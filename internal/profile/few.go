package profile

import (
	"fmt"
	"math"

	"github.com/kdelta/kdelta/internal/result"
)

// FewAlpha is the chance, for a symbol of the same share on both sides,
// that its samples all land on one side, above which a symbol sampled on
// one side only is marked MarkFew rather than new or gone.
const FewAlpha = 0.05

// tooFew marks a new or gone row whose samples are too few to tell it
// from chance. Given the symbol's k samples over both sides, a symbol of
// the same share on both draws each of them on side A with probability
// p = TA/(TA+TB), TA and TB the sides' total samples; all k on one side
// happen with probability p^k (or (1−p)^k). Twice that, the two-sided
// chance, above FewAlpha is no evidence: 1 sample a side of equal size
// is 1.0, 2 are 0.5, 5 are 0.0625, 6 are 0.031. Its change of samples
// (−100%, +inf) is dropped with it.
func tooFew(r *Row, a, b Summary) {
	if r.Mark != MarkNew && r.Mark != MarkGone {
		return
	}
	ta, tb := a.Samples*float64(a.N), b.Samples*float64(b.N)
	if !(ta > 0 && tb > 0) {
		return
	}
	seen, p := r.A, ta/(ta+tb)
	if r.Mark == MarkNew {
		seen, p = r.B, tb/(ta+tb)
	}
	if math.IsNaN(seen.Samples) {
		return
	}
	k := math.Round(seen.Samples * float64(seen.N))
	if 2*math.Pow(p, k) <= FewAlpha {
		return
	}
	r.Mark = MarkFew
	r.SamplesChange, r.PerOpChange = math.NaN(), math.NaN()
}

// FewNote is what a row marked MarkFew says: the samples it had, and
// that they cannot tell.
func FewNote(r Row) string {
	side, k := "A", r.A.Samples*float64(r.A.N)
	if r.A.Listed == 0 {
		side, k = "B", r.B.Samples*float64(r.B.N)
	}
	word := "samples"
	if math.Round(k) == 1 {
		word = "sample"
	}
	return fmt.Sprintf("%.0f %s in %s only: below what the samples can tell", k, word, side)
}

// sideWarnings are the warnings of a side's profiles, each said once:
// one said by several profiles names how many.
func sideWarnings(ps []*result.Profile) []string {
	count := map[string]int{}
	var order []string
	for _, p := range ps {
		seen := map[string]bool{}
		for _, w := range p.Warnings {
			if seen[w] {
				continue
			}
			seen[w] = true
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	out := make([]string, 0, len(order))
	for _, w := range order {
		if n := count[w]; n > 1 {
			w = fmt.Sprintf("%s (%d of %d profiles)", w, n, len(ps))
		}
		out = append(out, w)
	}
	return out
}
