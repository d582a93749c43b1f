package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// allDiffs materialises the sorted pairwise differences y_j − x_i.
func allDiffs(x, y []float64) []float64 {
	var d []float64
	for _, xi := range x {
		for _, yj := range y {
			d = append(d, yj-xi)
		}
	}
	slices.Sort(d)
	return d
}

// TestPairDiffsKth checks the selection of order statistics of the implicit
// difference matrix against sorting all of them, on samples with ties,
// negative values and zeros.
func TestPairDiffsKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 60 {
		n1, n2 := 1+rng.IntN(30), 1+rng.IntN(30)
		x, y := make([]float64, n1), make([]float64, n2)
		for i := range x {
			x[i] = rng.NormFloat64() * 3
		}
		for i := range y {
			y[i] = rng.NormFloat64()*3 + 1
		}
		if trial%3 == 0 {
			for _, s := range [][]float64{x, y} {
				for i := range s {
					s[i] = math.Round(s[i])
				}
			}
		}
		slices.Sort(x)
		slices.Sort(y)
		want := allDiffs(x, y)
		// gather 1 and 7 force the search; 0 lists at once.
		for _, gather := range []int64{0, 1, 7} {
			pd := pairDiffs{x: x, y: y, gather: gather}
			for k := int64(1); k <= int64(len(want)); k++ {
				if got := pd.kth(k); got != want[k-1] {
					t.Fatalf("trial %d, gather %d: kth(%d) = %v, want %v", trial, gather, k, got, want[k-1])
				}
			}
		}
	}
}

func TestOrderedKey(t *testing.T) {
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for i := range vals {
		if back := fromOrderedKey(orderedKey(vals[i])); back != vals[i] {
			t.Errorf("round trip of %v gives %v", vals[i], back)
		}
		if i > 0 && orderedKey(vals[i-1]) >= orderedKey(vals[i]) {
			t.Errorf("key of %v is not below key of %v", vals[i-1], vals[i])
		}
	}
}

// TestCriticalK checks the interval ranks: 24 for 10x10 at 95% (the
// published critical U is 23), none for 3x3, and the normal approximation
// against the exact ranks where both can be computed.
func TestCriticalK(t *testing.T) {
	tests := []struct {
		n1, n2 int
		alpha  float64
		want   int
	}{
		{10, 10, 0.05, 24},
		{5, 5, 0.05, 3},
		{8, 8, 0.05, 14},
		{5, 10, 0.05, 9},
		{3, 3, 0.05, 0},
		{4, 4, 0.05, 1},
		{1, 1, 0.05, 0},
	}
	for _, tt := range tests {
		if got := criticalK(tt.n1, tt.n2, tt.alpha); got != tt.want {
			t.Errorf("criticalK(%d, %d, %v) = %d, want %d", tt.n1, tt.n2, tt.alpha, got, tt.want)
		}
	}
	for _, n := range []int{30, 40, 50} {
		exact := criticalK(n, n, 0.05)
		m := n * n
		sigma := math.Sqrt(float64(m) * float64(2*n+1) / 12)
		approx := int(math.Ceil(float64(m)/2 - 0.5 - 1.959963984540054*sigma))
		if abs(exact-approx) > 1 {
			t.Errorf("%dx%d: exact k %d, normal approximation %d", n, n, exact, approx)
		}
	}
}

// TestHodgesLehmann checks the estimate and interval against brute force on
// the log scale and on the raw scale.
func TestHodgesLehmann(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 30 {
		n1, n2 := 2+rng.IntN(20), 2+rng.IntN(20)
		a, b := make([]float64, n1), make([]float64, n2)
		offset := 10.0
		if trial%2 == 1 {
			offset = 0 // values of both signs: raw scale
		}
		for i := range a {
			a[i] = offset + rng.NormFloat64()
		}
		for i := range b {
			b[i] = offset + 0.5 + rng.NormFloat64()
		}
		logs := trial%2 == 0
		x, y := sortedCopy(a), sortedCopy(b)
		toChange := math.Expm1
		if logs {
			for i := range x {
				x[i] = math.Log(x[i])
			}
			for i := range y {
				y[i] = math.Log(y[i])
			}
		} else {
			scale := math.Abs(medianSorted(sortedCopy(a)))
			toChange = func(d float64) float64 { return d / scale }
		}
		d := allDiffs(x, y)
		k := criticalK(n1, n2, 0.05)
		sh, err := HodgesLehmann(a, b, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if sh.Log != logs {
			t.Errorf("trial %d: Log = %v, want %v", trial, sh.Log, logs)
		}
		if want := toChange(medianSorted(d)); math.Abs(sh.Change-want) > 1e-12 {
			t.Errorf("trial %d: change %v, want %v", trial, sh.Change, want)
		}
		wantLo, wantHi := toChange(math.Inf(-1)), toChange(math.Inf(1))
		if k >= 1 {
			wantLo, wantHi = toChange(d[k-1]), toChange(d[len(d)-k])
		}
		if sh.Lo != wantLo || sh.Hi != wantHi {
			t.Errorf("trial %d (%dx%d, k %d): interval [%v, %v], want [%v, %v]", trial, n1, n2, k, sh.Lo, sh.Hi, wantLo, wantHi)
		}
	}
}

// TestHodgesLehmannAgreesWithTest checks that, without ties, the interval
// excludes zero change exactly when the exact U test gives p < α.
func TestHodgesLehmannAgreesWithTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 2000 {
		n1, n2 := 4+rng.IntN(12), 4+rng.IntN(12)
		shift := 0.03 * rng.Float64()
		a, b := make([]float64, n1), make([]float64, n2)
		for i := range a {
			a[i] = 100 * math.Exp(0.02*rng.NormFloat64())
		}
		for i := range b {
			b[i] = 100 * math.Exp(shift+0.02*rng.NormFloat64())
		}
		sh, err := HodgesLehmann(a, b, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		p := MannWhitney(a, b).P
		excludes := sh.Lo > 0 || sh.Hi < 0
		if excludes != (p < 0.05) {
			t.Fatalf("trial %d: interval [%v, %v] but p = %v", trial, sh.Lo, sh.Hi, p)
		}
	}
}

func TestHodgesLehmannErrors(t *testing.T) {
	tests := []struct {
		name  string
		a, b  []float64
		alpha float64
	}{
		{"empty a", nil, []float64{1}, 0.05},
		{"empty b", []float64{1}, nil, 0.05},
		{"alpha 0", []float64{1}, []float64{2}, 0},
		{"alpha 1", []float64{1}, []float64{2}, 1},
		{"alpha NaN", []float64{1}, []float64{2}, math.NaN()},
		{"median of a is 0", []float64{-1, 0, 1}, []float64{2, 3}, 0.05},
	}
	for _, tt := range tests {
		if _, err := HodgesLehmann(tt.a, tt.b, tt.alpha); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if _, err := HodgesLehmann([]float64{-1, 0, 1}, []float64{2, 3}, 0.05); !errors.Is(err, ErrNoRelativeChange) {
		t.Errorf("median of a is 0: error %v is not ErrNoRelativeChange", err)
	}
}

// TestPairDiffsKthLarge checks the search on a million differences, from
// smooth and from heavily tied data, at the ranks a 95% interval and the
// median use.
func TestPairDiffsKthLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, quantum := range []float64{0, 0.25} {
		x, y := make([]float64, 1000), make([]float64, 1100)
		for i := range x {
			x[i] = math.Exp(0.02 * rng.NormFloat64())
		}
		for i := range y {
			y[i] = 1.01 * math.Exp(0.02*rng.NormFloat64())
		}
		if quantum > 0 {
			for _, s := range [][]float64{x, y} {
				for i := range s {
					s[i] = quantum * math.Round(s[i]*100/quantum) / 100
				}
			}
		}
		slices.Sort(x)
		slices.Sort(y)
		want := allDiffs(x, y)
		m := int64(len(want))
		k := int64(criticalK(len(x), len(y), 0.05))
		pd := pairDiffs{x: x, y: y}
		for _, r := range []int64{1, 2, k, m / 2, m/2 + 1, m + 1 - k, m - 1, m} {
			if got := pd.kth(r); got != want[r-1] {
				t.Errorf("quantum %v: kth(%d) = %v, want %v", quantum, r, got, want[r-1])
			}
		}
	}
}
