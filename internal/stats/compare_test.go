package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A generator draws one run of a simulated benchmark whose true centre is
// scaled by factor.
type generator struct {
	name       string
	continuous bool
	draw       func(rng *rand.Rand, factor float64) float64
}

// generators are the shapes the simulations run on, with a 2% coefficient of
// variation before quantisation (5% for the coarse jiffies). Times are in
// milliseconds.
var generators = []generator{
	{"normal", true, func(rng *rand.Rand, f float64) float64 {
		return f * (10 + 0.2*rng.NormFloat64())
	}},
	{"lognormal", true, func(rng *rand.Rand, f float64) float64 {
		return f * 10 * math.Exp(0.02*rng.NormFloat64())
	}},
	// A 10 ms latency read with a 4 ms jiffy (HZ=250), the brief's
	// example 4·round(N(10, 0.5)/4): nearly every value is 8 or 12, so the
	// samples are almost all ties.
	{"jiffies-coarse", false, func(rng *rand.Rand, f float64) float64 {
		return 4 * math.Round(f*(10+0.5*rng.NormFloat64())/4)
	}},
	// A 100 ms latency read with a 4 ms jiffy: a handful of levels.
	{"jiffies-fine", false, func(rng *rand.Rand, f float64) float64 {
		return 4 * math.Round(f*(100+2*rng.NormFloat64())/4)
	}},
}

func sample(rng *rand.Rand, g generator, n int, factor float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = g.draw(rng, factor)
	}
	return xs
}

// binomialBand returns α ± 3 binomial standard deviations for trials.
func binomialBand(alpha float64, trials int) (lo, hi float64) {
	sd := math.Sqrt(alpha * (1 - alpha) / float64(trials))
	return alpha - 3*sd, alpha + 3*sd
}

// TestCompareFalsePositives runs A/A comparisons (both samples from one
// distribution) and checks that the test rejects at its nominal rate and
// that Compare claims a change no more often than α.
//
// For continuous data the rate of p < α must lie within α ± 3σ (the exact
// test at 10x10 has true size 0.0433, inside the band). For jiffy-quantised
// data the exact tie-aware test is conditional on the ties and discrete, so
// it is conservative: the rate must only stay ≤ α + 3σ (with coarse jiffies
// it is far below α, the price of data that hold almost no information).
func TestCompareFalsePositives(t *testing.T) {
	const trials, n = 2000, 10
	const alpha = 0.05
	bandLo, bandHi := binomialBand(alpha, trials)
	for _, test := range []string{TestMannWhitney, TestWelch} {
		for gi, g := range generators {
			if test == TestWelch && !g.continuous {
				continue // Welch assumes continuous, near-normal data
			}
			t.Run(test+"/"+g.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(100, uint64(gi)))
				opt := Options{Test: test}
				var rejected, claimed int
				for range trials {
					c := Compare(sample(rng, g, n, 1), sample(rng, g, n, 1), opt)
					if c.P < alpha {
						rejected++
					}
					if c.Verdict == Improved || c.Verdict == Regressed {
						claimed++
					}
				}
				rate := float64(rejected) / trials
				claims := float64(claimed) / trials
				t.Logf("rate of p < α: %.4f (band [%.4f, %.4f]); rate of claims: %.4f", rate, bandLo, bandHi, claims)
				if rate > bandHi || g.continuous && rate < bandLo {
					t.Errorf("rate of p < α = %.4f, want within [%.4f, %.4f] (continuous %v)", rate, bandLo, bandHi, g.continuous)
				}
				if claims > alpha {
					t.Errorf("rate of improved/regressed = %.4f, want ≤ %v", claims, alpha)
				}
			})
		}
	}
}

// TestComparePower checks that a true 5% slowdown at n = 10 and CV 2% is
// called a regression (lower is better) or an improvement (higher is
// better) in at least 90% of trials.
func TestComparePower(t *testing.T) {
	const trials, n = 1000, 10
	for _, test := range []string{TestMannWhitney, TestWelch} {
		for _, better := range []Better{Lower, Higher} {
			for gi, g := range generators {
				if test == TestWelch && !g.continuous {
					continue
				}
				// The claim is for continuous data. A 5% shift of
				// 10 ms is an eighth of a jiffy, invisible at n = 10;
				// of 100 ms, 1.25 jiffies: the test sees it (p < α in
				// 98% of trials) but the interval's lower end often
				// lands on the difference 0 of the grid, which cannot
				// clear the 1% threshold, so the power is ~0.78.
				floor := 0.9
				switch g.name {
				case "jiffies-coarse":
					continue
				case "jiffies-fine":
					floor = 0.7
				}
				t.Run(fmt.Sprintf("%s/%s/%s", test, better, g.name), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(200, uint64(gi)))
					want := Regressed
					if better == Higher {
						want = Improved
					}
					var hits int
					for range trials {
						c := Compare(sample(rng, g, n, 1), sample(rng, g, n, 1.05), Options{Test: test, Better: better})
						if c.Verdict == want {
							hits++
						}
					}
					rate := float64(hits) / trials
					t.Logf("rate of %s: %.3f", want, rate)
					if rate < floor {
						t.Errorf("rate of %s = %.3f, want ≥ %v", want, rate, floor)
					}
				})
			}
		}
	}
}

// TestCompareCoverage checks that the 95% interval covers the true relative
// change of +5% (and of 0) in at least 93% of trials on continuous data.
// The change is a scale factor, so on the log scale it is a pure shift and
// the Hodges–Lehmann interval is exact; Fieller's interval targets the ratio
// of means, which the factor also sets exactly.
func TestCompareCoverage(t *testing.T) {
	const trials, n = 2000, 10
	for _, test := range []string{TestMannWhitney, TestWelch} {
		for gi, g := range generators {
			if !g.continuous {
				continue
			}
			for fi, factor := range []float64{1, 1.05} {
				t.Run(fmt.Sprintf("%s/%s/%v", test, g.name, factor), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(300+uint64(fi), uint64(gi)))
					truth := factor - 1
					var covered int
					for range trials {
						c := Compare(sample(rng, g, n, 1), sample(rng, g, n, factor), Options{Test: test})
						if c.CI[0] <= truth && truth <= c.CI[1] {
							covered++
						}
					}
					rate := float64(covered) / trials
					t.Logf("coverage %.4f", rate)
					if rate < 0.93 {
						t.Errorf("coverage %.4f, want ≥ 0.93", rate)
					}
				})
			}
		}
	}
}

// TestCompareTooFewRuns checks that 3 runs a side are always inconclusive
// with the Mann-Whitney test, whatever the shift, and ask for more runs,
// or say that no bounded number of runs would do (a change on the
// threshold).
func TestCompareTooFewRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(400, 1))
	for _, factor := range []float64{1, 1.05, 2, 100} {
		for _, g := range generators {
			for range 200 {
				c := Compare(sample(rng, g, 3, 1), sample(rng, g, 3, factor), Options{})
				if c.Verdict != Inconclusive {
					t.Fatalf("%s ×%v: verdict %q with 3 runs a side (p %v, CI %v)", g.name, factor, c.Verdict, c.P, c.CI)
				}
				if c.NeedRuns < 4 && !c.BelowNoise {
					t.Fatalf("%s ×%v: NeedRuns %d, want ≥ 4 (or the change far below the noise)", g.name, factor, c.NeedRuns)
				}
			}
		}
	}
}

// TestCompareNeedRuns checks that the estimate of runs is more than we have
// and that running that many settles most comparisons that were
// inconclusive with an estimate (not far below the noise).
func TestCompareNeedRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(500, 1))
	g := generators[1]
	var inconclusive, settled int
	for range 300 {
		// A 3% change at 5 runs a side is seldom clear.
		c := Compare(sample(rng, g, 5, 1), sample(rng, g, 5, 1.03), Options{})
		if c.Verdict != Inconclusive || c.BelowNoise {
			continue
		}
		inconclusive++
		if c.NeedRuns <= 5 {
			t.Fatalf("NeedRuns %d, want > 5 (CI %v)", c.NeedRuns, c.CI)
		}
		n := min(c.NeedRuns, 200)
		again := Compare(sample(rng, g, n, 1), sample(rng, g, n, 1.03), Options{})
		if again.Verdict == Regressed {
			settled++
		}
	}
	share := float64(settled) / float64(inconclusive)
	t.Logf("%d inconclusive at n = 5; %.2f settled as regressed with NeedRuns", inconclusive, share)
	if inconclusive < 100 || share < 0.6 {
		t.Errorf("%d inconclusive, %.2f settled with NeedRuns runs; want ≥ 100 and ≥ 0.6", inconclusive, share)
	}
}

// TestCompareCases covers degenerate samples and fixed outcomes.
func TestCompareCases(t *testing.T) {
	rep := func(v float64, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = v
		}
		return xs
	}
	tests := []struct {
		name     string
		a, b     []float64
		opt      Options
		want     Verdict
		needRuns int    // −1: any
		warning  string // a substring of one warning, if any
	}{
		{"constant equal, 3 runs", rep(10, 3), rep(10, 3), Options{}, Inconclusive, 4, "only 3 runs"},
		{"constant equal, 4 runs", rep(10, 4), rep(10, 4), Options{}, NoChange, 0, "only 4 runs"},
		{"constant equal, 10 runs", rep(10, 10), rep(10, 10), Options{}, NoChange, 0, ""},
		{"constant different, 3 runs", rep(10, 3), rep(11, 3), Options{}, Inconclusive, 4, "can never reach"},
		{"constant different, 10 runs", rep(10, 10), rep(11, 10), Options{}, Regressed, 0, ""},
		{"constant faster, higher is better", rep(10, 10), rep(11, 10), Options{Better: Higher}, Improved, 0, ""},
		{"constant, change inside the band", rep(10, 10), rep(10.05, 10), Options{}, NoChange, 0, ""},
		{"constant different, welch", rep(10, 5), rep(9, 5), Options{Test: TestWelch}, Improved, 0, ""},
		{"empty a", nil, rep(1, 5), Options{}, Inconclusive, 4, "A: no runs"},
		{"one run each", []float64{1}, []float64{2}, Options{}, Inconclusive, 4, "can never reach"},
		{"one run against five", []float64{1}, rep(2, 5), Options{}, Inconclusive, 5, "can never reach"},
		{"one run each, welch", []float64{1}, []float64{2}, Options{Test: TestWelch}, Inconclusive, 2, "can never reach"},
		{"non-finite dropped", []float64{1, 2, math.NaN(), 3}, []float64{1, 2, 3, math.Inf(1)}, Options{}, Inconclusive, -1, "A: 1 non-finite"},
		{"values ≤ 0", []float64{-1, 1, 2, 3, 4, 5}, []float64{-1, 1, 2, 3, 4, 5}, Options{}, Inconclusive, -1, "values ≤ 0"},
		{"median of a is 0", []float64{-1, 0, 0, 0, 1}, []float64{1, 2, 3, 4, 5}, Options{}, Inconclusive, 0, "median of the first sample is 0"},
		{"mean of a is 0, welch", []float64{-1, 0, 1}, []float64{1, 2, 3}, Options{Test: TestWelch}, Inconclusive, 0, "mean of A is 0"},
		{"bad options", rep(10, 10), rep(11, 10), Options{Alpha: 2, Test: "ttest"}, Regressed, 0, "invalid options"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.a, tt.b, tt.opt)
			if c.Verdict != tt.want {
				t.Errorf("verdict %q, want %q (p %v, change %v, CI %v, warnings %q)", c.Verdict, tt.want, c.P, c.Change, c.CI, c.Warnings)
			}
			if tt.needRuns >= 0 && c.NeedRuns != tt.needRuns {
				t.Errorf("NeedRuns %d, want %d", c.NeedRuns, tt.needRuns)
			}
			if tt.warning != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", c.Warnings, tt.warning)
			}
			for _, v := range []float64{c.Change, c.P, c.CI[0], c.CI[1], c.A.Mean, c.B.Stddev} {
				if math.IsNaN(v) {
					t.Errorf("NaN in %+v", c)
				}
			}
		})
	}
}

// TestDecide drives the one verdict rule. The empty direction is the case
// that disagreed before: kdelta compare and the sweeps read it as lower is
// better and store.Regressed as higher is better, so the same rise of a
// metric without a direction was a regression in one and an improvement in
// the other. Here it is lower is better, as for every time.
func TestDecide(t *testing.T) {
	const sig, notSig = 0.001, 0.5
	rise := [2]float64{0.05, 0.15}   // wholly above the 1% band
	drop := [2]float64{-0.15, -0.05} // wholly below it
	tests := []struct {
		name      string
		p         float64
		ci        [2]float64
		reachable bool
		better    Better
		want      Verdict
	}{
		{"rise, no direction", sig, rise, true, "", Regressed},
		{"rise, lower is better", sig, rise, true, Lower, Regressed},
		{"rise, higher is better", sig, rise, true, Higher, Improved},
		{"drop, no direction", sig, drop, true, "", Improved},
		{"drop, lower is better", sig, drop, true, Lower, Improved},
		{"drop, higher is better", sig, drop, true, Higher, Regressed},
		{"drop to the log floor, higher is better", sig, [2]float64{-1, -0.5}, true, Higher, Regressed},
		{"drop without a lower end, higher is better", sig, [2]float64{math.Inf(-1), -0.5}, true, Higher, Regressed},
		{"rise without an upper end, no direction", sig, [2]float64{0.5, math.Inf(1)}, true, "", Regressed},
		{"rise, not significant", notSig, rise, true, "", Inconclusive},
		{"rise, test cannot reach alpha", sig, rise, false, "", Inconclusive},
		{"inside the band", notSig, [2]float64{-0.005, 0.008}, true, "", NoChange},
		{"on the band's edges", notSig, [2]float64{-0.01, 0.01}, true, Higher, NoChange},
		{"inside the band, test cannot reach alpha", notSig, [2]float64{0, 0}, false, "", Inconclusive},
		{"straddles the band", sig, [2]float64{0.005, 0.2}, true, "", Inconclusive},
		{"straddles 0", sig, [2]float64{-0.2, 0.2}, true, Higher, Inconclusive},
	}
	for _, tt := range tests {
		if got := Decide(tt.p, tt.ci, tt.reachable, Options{Better: tt.better}); got != tt.want {
			t.Errorf("%s: Decide(p %v, CI %v, reachable %v, better %q) = %q, want %q", tt.name, tt.p, tt.ci, tt.reachable, tt.better, got, tt.want)
		}
	}
	// Compare comes to the same verdicts on samples: a constant rise of
	// 10% with no direction given is a regression.
	a, b := []float64{10, 10, 10, 10, 10}, []float64{11, 11, 11, 11, 11}
	if v := Compare(a, b, Options{}).Verdict; v != Regressed {
		t.Errorf("a 10%% rise without a direction: %q, want regressed", v)
	}
	if v := Compare(a, b, Options{Better: Higher}).Verdict; v != Improved {
		t.Errorf("a 10%% rise, higher is better: %q, want improved", v)
	}
}

// TestBetterWorse checks the direction rule that Decide and result's
// Metric.Worse share.
func TestBetterWorse(t *testing.T) {
	for _, tt := range []struct {
		better Better
		change float64
		worse  bool
	}{
		{"", 0.1, true}, {"", -0.1, false}, {Lower, 0.1, true}, {Lower, -0.1, false},
		{Higher, 0.1, false}, {Higher, -0.1, true}, {"", 0, false}, {Higher, 0, false},
	} {
		if got := tt.better.Worse(tt.change); got != tt.worse {
			t.Errorf("Better(%q).Worse(%v) = %v, want %v", tt.better, tt.change, got, tt.worse)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		opt     Options
		wantErr string
	}{
		{Options{}, ""},
		{DefaultOptions(), ""},
		{Options{Alpha: 0.01, Threshold: 0.02, Test: TestWelch, Better: Higher}, ""},
		{Options{Alpha: 1}, "alpha 1"},
		{Options{Alpha: -0.1}, "alpha -0.1"},
		{Options{Threshold: -0.01}, "threshold -0.01"},
		{Options{Threshold: math.Inf(1)}, "threshold +Inf"},
		{Options{Test: "ttest"}, `test "ttest"`},
		{Options{Better: "up"}, `better "up"`},
	}
	for _, tt := range tests {
		err := tt.opt.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", tt.opt, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%+v: error %v, want one naming %s", tt.opt, err, tt.wantErr)
		}
	}
	if got, _ := (Options{}).withDefaults(); got != DefaultOptions() {
		t.Errorf("zero options become %+v, want %+v", got, DefaultOptions())
	}
}

// FuzzCompare feeds Compare arbitrary samples and checks that it neither
// panics nor returns NaN or a malformed answer.
func FuzzCompare(f *testing.F) {
	f.Add([]byte{}, []byte{1}, uint8(0))
	f.Add([]byte{10, 10, 10}, []byte{10, 10, 10}, uint8(1))
	f.Add([]byte{8, 12, 8, 12, 8, 8}, []byte{12, 12, 8, 12, 16, 12}, uint8(2))
	f.Add([]byte{0, 1, 2, 255, 254}, []byte{3, 3, 3, 3, 3, 3, 3}, uint8(3))
	f.Fuzz(func(t *testing.T, ra, rb []byte, mode uint8) {
		// Bytes become values around 0 or 100 (mode bit 0), on a fine
		// or jiffy-like grid (bit 1); bit 2 picks Welch, bit 3 higher is
		// better.
		decode := func(raw []byte) []float64 {
			xs := make([]float64, len(raw))
			for i, r := range raw {
				v := float64(r) - 128
				if mode&1 == 1 {
					v = 100 + v/16
				}
				if mode&2 == 2 {
					v = 4 * math.Round(v/4)
				}
				xs[i] = v
			}
			return xs
		}
		opt := Options{}
		if mode&4 != 0 {
			opt.Test = TestWelch
		}
		if mode&8 != 0 {
			opt.Better = Higher
		}
		c := Compare(decode(ra), decode(rb), opt)
		for _, v := range []float64{c.Change, c.P, c.Stat, c.A.Stddev, c.B.CV} {
			if math.IsNaN(v) {
				t.Fatalf("NaN in %+v", c)
			}
		}
		if !(c.CI[0] <= c.CI[1]) || !(c.P >= 0 && c.P <= 1) || c.NeedRuns < 0 {
			t.Fatalf("malformed %+v", c)
		}
		switch c.Verdict {
		case Improved, Regressed, NoChange:
			if c.NeedRuns != 0 {
				t.Fatalf("NeedRuns %d with verdict %q", c.NeedRuns, c.Verdict)
			}
		case Inconclusive:
		default:
			t.Fatalf("verdict %q", c.Verdict)
		}
	})
}

// TestCompareSummaries checks the summary path against the sample path: a
// summary built from samples must give Welch's verdict on those samples.
func TestCompareSummaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	agree := 0
	const trials = 300
	for i := 0; i < trials; i++ {
		a, b := make([]float64, 10), make([]float64, 10)
		shift := []float64{0, 0.03, 0.1}[i%3]
		for j := range a {
			a[j] = 100 * (1 + 0.02*rng.NormFloat64())
			b[j] = 100 * (1 + shift) * (1 + 0.02*rng.NormFloat64())
		}
		opt := Options{Test: TestWelch}
		want := Compare(a, b, opt)
		got := CompareSummaries(Summarize(a), Summarize(b), opt)
		if math.Abs(got.P-want.P) > 1e-9 || math.Abs(got.Change-want.Change) > 1e-12 {
			t.Fatalf("trial %d: summaries give p=%v change=%v, samples p=%v change=%v", i, got.P, got.Change, want.P, want.Change)
		}
		if got.Verdict == want.Verdict {
			agree++
		}
	}
	if agree != trials {
		t.Errorf("verdicts agree in %d of %d trials", agree, trials)
	}
	// One run a side can never be compared.
	c := CompareSummaries(Summary{N: 1, Mean: 1}, Summary{N: 1, Mean: 2}, Options{})
	if c.Verdict != Inconclusive || c.NeedRuns != 2 {
		t.Errorf("n=1: verdict %s need %d", c.Verdict, c.NeedRuns)
	}
}
