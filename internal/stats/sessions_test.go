package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A host draws runs nested in sessions: each session's centre is the
// true one scaled by exp(σ_S·z) (a session CV of about σ_S), and each run
// scatters around its session's centre with the run CV, in one of the
// shapes below.
type host struct {
	sessionCV, runCV float64
	shape            string
}

// The shapes of run noise: normal; skewed (the centre times
// 1 + CV·(E−1), E exponential, so a long tail of slow runs); and a 400 ms
// latency read on a 4 ms jiffy (HZ=250), quantised after the noise.
var shapes = []string{"normal", "skewed", "jiffies"}

func (h host) session(rng *rand.Rand, n int, factor float64) []float64 {
	centre := 400 * factor * math.Exp(h.sessionCV*rng.NormFloat64())
	xs := make([]float64, n)
	for i := range xs {
		switch h.shape {
		case "normal":
			xs[i] = centre * (1 + h.runCV*rng.NormFloat64())
		case "skewed":
			xs[i] = centre * (1 + h.runCV*(rng.ExpFloat64()-1))
		case "jiffies":
			xs[i] = 4 * math.Round(centre*(1+h.runCV*rng.NormFloat64())/4)
		}
	}
	return xs
}

func (h host) sessions(rng *rand.Rand, k, n int, factor float64) [][]float64 {
	ss := make([][]float64, k)
	for i := range ss {
		ss[i] = h.session(rng, n, factor)
	}
	return ss
}

// calibrate is kdelta calibrate on a simulated host: 8 A/A sessions of
// 8 runs.
func (h host) calibrate(rng *rand.Rand) SessionNoise {
	n, err := EstimateSessionNoise(h.sessions(rng, 8, 8, 1))
	if err != nil {
		panic(err)
	}
	return n
}

// A design is how many sessions of how many runs each side has, and
// whether the host is calibrated (always, with a single session a side).
type design struct {
	ka, kb, n int
	cal       bool
}

func (d design) String() string {
	s := fmt.Sprintf("%d×%d vs %d×%d", d.ka, d.n, d.kb, d.n)
	if d.cal && d.ka > 1 && d.kb > 1 {
		s += " calibrated"
	}
	return s
}

var designs = []design{{1, 1, 8, true}, {1, 3, 8, true}, {2, 2, 8, false}, {2, 2, 8, true}, {3, 3, 5, false}, {3, 3, 5, true}, {5, 5, 4, false}}

// trial compares b, scaled by factor, with a, on a fresh calibration when
// the design is calibrated.
func (d design) trial(rng *rand.Rand, h host, factor float64) Comparison {
	var noise SessionNoise
	if d.cal {
		noise = h.calibrate(rng)
	}
	return CompareSessions(h.sessions(rng, d.ka, d.n, 1), h.sessions(rng, d.kb, d.n, factor), noise, Options{})
}

func simHosts() []host {
	var hs []host
	for _, scv := range []float64{0, 0.02, 0.05, 0.08} {
		for _, rcv := range []float64{0.01, 0.05, 0.10} {
			for _, sh := range shapes {
				hs = append(hs, host{scv, rcv, sh})
			}
		}
	}
	return hs
}

// TestSessionsFalsePositives runs A/A comparisons across sessions, for
// every design, session CV from 0 to 8%, run CV from 1 to 10% and every
// shape, and checks that the rate of p < α and the rate of claims stay
// within α + 3σ of the binomial band, and that the interval of a true +5%
// change covers it in at least 93% of trials in each cell (3σ below 0.95)
// and in at least 94% over each design's cells.
func TestSessionsFalsePositives(t *testing.T) {
	trials := 800
	if testing.Short() {
		trials = 250
	}
	const alpha = 0.05
	_, hi := binomialBand(alpha, trials)
	for di, d := range designs {
		t.Run(d.String(), func(t *testing.T) {
			var covered, total int
			worstP, worstCover := 0.0, 1.0
			for hi2, h := range simHosts() {
				rng := rand.New(rand.NewPCG(1500+uint64(di), uint64(hi2)))
				var rejected, claimed, cov int
				for range trials {
					c := d.trial(rng, h, 1)
					if c.P < alpha {
						rejected++
					}
					if c.Verdict == Improved || c.Verdict == Regressed {
						claimed++
					}
					c = d.trial(rng, h, 1.05)
					if c.CI[0] <= 0.05 && 0.05 <= c.CI[1] {
						cov++
					}
				}
				rate, claims, cover := float64(rejected)/float64(trials), float64(claimed)/float64(trials), float64(cov)/float64(trials)
				worstP, worstCover = math.Max(worstP, rate), math.Min(worstCover, cover)
				covered += cov
				total += trials
				if rate > hi || claims > hi {
					t.Errorf("%+v: rate of p < α %.4f, of claims %.4f; want ≤ %.4f", h, rate, claims, hi)
				}
				if cover < 0.93 {
					t.Errorf("%+v: coverage of +5%% %.4f, want ≥ 0.93", h, cover)
				}
			}
			all := float64(covered) / float64(total)
			t.Logf("%s: worst rate of p < α %.4f (≤ %.4f); coverage of +5%%: %.4f overall, worst cell %.4f", d, worstP, hi, all, worstCover)
			if all < 0.94 {
				t.Errorf("coverage %.4f over the design's cells, want ≥ 0.94", all)
			}
		})
	}
}

// TestSessionsPower logs, for every design, the rate at which a true 5%
// and 10% slowdown is called a regression on a host of a 2% and a 5%
// session CV and a 2% run CV, and checks three figures it can promise at
// a 2% session CV: one calibrated session a side finds a 10% slowdown in
// most trials, two calibrated sessions a side in more, and five sessions
// a side in nearly all. Two sessions a side without a calibration have
// one degree of freedom a side and find little: that is what an unknown
// session noise costs.
func TestSessionsPower(t *testing.T) {
	trials := 500
	if testing.Short() {
		trials = 150
	}
	var log strings.Builder
	for di, d := range designs {
		for _, scv := range []float64{0.02, 0.05} {
			h := host{scv, 0.02, "normal"}
			rng := rand.New(rand.NewPCG(1600+uint64(di), uint64(scv*100)))
			var rates []float64
			for _, shift := range []float64{1.05, 1.10} {
				hits := 0
				for range trials {
					if d.trial(rng, h, shift).Verdict == Regressed {
						hits++
					}
				}
				rates = append(rates, float64(hits)/float64(trials))
			}
			fmt.Fprintf(&log, "\n%-12s session CV %2.0f%%: power %.3f at +5%%, %.3f at +10%%", d, scv*100, rates[0], rates[1])
			floor := map[design]float64{{1, 1, 8, true}: 0.6, {2, 2, 8, true}: 0.7, {5, 5, 4, false}: 0.95}[d]
			if scv == 0.02 && rates[1] < floor {
				t.Errorf("%s, session CV 2%%: power %.3f at +10%%, want ≥ %v", d, rates[1], floor)
			}
		}
	}
	t.Log(log.String())
}

// TestSessionsNoiseUnknown checks that one session a side without the
// host's session noise never claims a change, however large, and says
// why; and that with it a doubling is found.
func TestSessionsNoiseUnknown(t *testing.T) {
	rng := rand.New(rand.NewPCG(1700, 1))
	h := host{0.05, 0.02, "normal"}
	for _, d := range []design{{1, 1, 8, false}, {1, 3, 8, false}, {3, 1, 8, false}} {
		c := CompareSessions(h.sessions(rng, d.ka, d.n, 1), h.sessions(rng, d.kb, d.n, 2), SessionNoise{}, Options{})
		if c.Verdict != Inconclusive || !c.Design.NoiseUnknown || c.NeedRuns != 0 || c.NeedSessions != 0 {
			t.Errorf("%s, noise unknown: %+v", d, c)
		}
		c = CompareSessions(h.sessions(rng, d.ka, d.n, 1), h.sessions(rng, d.kb, d.n, 2), h.calibrate(rng), Options{})
		if c.Verdict != Regressed || c.Design.NoiseUnknown || !c.Design.Noise.Known() {
			t.Errorf("%s, calibrated: %s %v %+v", d, c.Verdict, c.CI, c.Design)
		}
	}
}

// TestSessionNoiseEstimate checks that the calibration's estimate of the
// session CV is close to the truth on many sessions, floored at 0 on a
// host without session noise, and refused on too little.
func TestSessionNoiseEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1800, 1))
	for _, scv := range []float64{0.02, 0.05, 0.08} {
		n, err := EstimateSessionNoise(host{scv, 0.02, "normal"}.sessions(rng, 400, 8, 1))
		if err != nil || n.DF != 399 || math.Abs(n.SD-scv) > 0.15*scv {
			t.Errorf("session CV %v: estimate %+v, %v", scv, n, err)
		}
	}
	if _, err := EstimateSessionNoise([][]float64{{1, 2}}); err == nil {
		t.Error("one session: no error")
	}
	if _, err := EstimateSessionNoise([][]float64{{1, 2}, {0, 1}}); err == nil {
		t.Error("a zero value: no error")
	}
}

// TestSessionsNeed checks the estimates of an inconclusive comparison
// across sessions: sessions when the session term limits it, and that as
// many sessions then mostly settle it; runs when the run term does; and
// "far below the noise" when the change sits on the threshold.
func TestSessionsNeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1900, 1))
	h := host{0.03, 0.01, "normal"}
	var asked, settled int
	for range 200 {
		c := CompareSessions(h.sessions(rng, 2, 8, 1), h.sessions(rng, 2, 8, 1.06), SessionNoise{}, Options{})
		if c.Verdict != Inconclusive {
			continue
		}
		if c.BelowNoise && c.NeedSessions == 0 && c.NeedRuns == 0 {
			continue // an estimate inside the band, far from settling
		}
		if c.NeedSessions == 0 || c.NeedRuns != 0 {
			t.Fatalf("session-limited: need %d sessions, %d runs, below noise %v (%v %v %+v)", c.NeedSessions, c.NeedRuns, c.BelowNoise, c.Change, c.CI, c.Design)
		}
		asked++
		k := c.NeedSessions
		if again := CompareSessions(h.sessions(rng, k, 8, 1), h.sessions(rng, k, 8, 1.06), SessionNoise{}, Options{}); again.Verdict == Regressed {
			settled++
		}
	}
	t.Logf("%d asked for sessions, %d settled with them", asked, settled)
	// The estimate aims the interval's end at the threshold for the
	// change observed, which is about an even chance of clearing it.
	if asked < 50 || float64(settled) < 0.4*float64(asked) {
		t.Errorf("%d asked for sessions, %d settled, want ≥ 50 and 40%%", asked, settled)
	}
	// Run noise dominant, session noise small and known: runs.
	h = host{0.002, 0.08, "normal"}
	c := CompareSessions(h.sessions(rng, 1, 4, 1), h.sessions(rng, 1, 4, 1.04), SessionNoise{SD: 0.002, DF: 9}, Options{})
	if c.Verdict != Inconclusive || c.NeedRuns <= 4 || c.NeedSessions != 0 {
		t.Errorf("run-limited: %s need %d runs, %d sessions", c.Verdict, c.NeedRuns, c.NeedSessions)
	}
	// A change of 1%, on the threshold, against 8% session noise.
	h = host{0, 0.0001, "normal"}
	c = CompareSessions(h.sessions(rng, 1, 8, 1), h.sessions(rng, 1, 8, 1.01), SessionNoise{SD: 0.08, DF: 9}, Options{})
	if c.Verdict != Inconclusive || !c.BelowNoise || c.NeedSessions != 0 || c.NeedRuns != 0 {
		t.Errorf("a 1%% change against 8%% session noise: need %d sessions, %d runs, below noise %v", c.NeedSessions, c.NeedRuns, c.BelowNoise)
	}
}

// TestSessionsCases covers degenerate sessions.
func TestSessionsCases(t *testing.T) {
	known := SessionNoise{SD: 0.01, DF: 7}
	for _, tt := range []struct {
		name    string
		a, b    [][]float64
		noise   SessionNoise
		want    Verdict
		warning string
	}{
		{"empty", nil, [][]float64{{1, 2}}, known, Inconclusive, "A: no runs"},
		{"one run per session", [][]float64{{10}}, [][]float64{{11}}, known, Inconclusive, "one run per session"},
		{"constant, equal, no noise", [][]float64{{10, 10}, {10, 10}}, [][]float64{{10, 10}, {10, 10}}, SessionNoise{}, NoChange, ""},
		{"constant, different", [][]float64{{10, 10}, {10, 10}}, [][]float64{{12, 12}, {12, 12}}, SessionNoise{}, Regressed, ""},
		{"non-finite dropped", [][]float64{{10, math.NaN()}, {math.Inf(1)}}, [][]float64{{10, 10}}, known, Inconclusive, "A: 2 non-finite"},
		{"values ≤ 0, mean 0", [][]float64{{-1, 1}, {-1, 1}}, [][]float64{{1, 2}, {2, 3}}, SessionNoise{}, Inconclusive, "mean of the baseline is 0"},
		{"welch asked", [][]float64{{10, 11}, {10.2, 11}}, [][]float64{{10, 11}, {10.5, 11.5}}, SessionNoise{}, Inconclusive, "not Welch's t over runs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{}
			if strings.Contains(tt.warning, "Welch") {
				opt.Test = TestWelch
			}
			c := CompareSessions(tt.a, tt.b, tt.noise, opt)
			if c.Verdict != tt.want {
				t.Errorf("verdict %s, want %s (%+v)", c.Verdict, tt.want, c)
			}
			if tt.warning != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", c.Warnings, tt.warning)
			}
			for _, v := range []float64{c.Change, c.P, c.CI[0], c.CI[1]} {
				if math.IsNaN(v) {
					t.Errorf("NaN in %+v", c)
				}
			}
		})
	}
}

// TestCompareSummarySessions checks the summary path against the sample
// path: summaries of one session each with a known noise give the
// interval and verdict of CompareSessions up to the delta method's
// approximation of the mean of logs by the log of the mean.
func TestCompareSummarySessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(2000, 1))
	h := host{0.03, 0.02, "normal"}
	agree := 0
	for range 200 {
		noise := h.calibrate(rng)
		a, b := h.session(rng, 10, 1), h.session(rng, 10, 1.2)
		want := CompareSessions([][]float64{a}, [][]float64{b}, noise, Options{})
		got := CompareSummarySessions(Summarize(a), Summarize(b), noise, Options{})
		if math.Abs(got.Change-want.Change) > 0.002 || math.Abs(got.CI[0]-want.CI[0]) > 0.01 {
			t.Fatalf("summaries: %v %v, samples: %v %v", got.Change, got.CI, want.Change, want.CI)
		}
		if got.Verdict == want.Verdict {
			agree++
		}
	}
	if agree < 195 {
		t.Errorf("verdicts agree in %d of 200", agree)
	}
	c := CompareSummarySessions(Summary{N: 5, Mean: 10, Stddev: 0.1}, Summary{N: 5, Mean: 20, Stddev: 0.1}, SessionNoise{}, Options{})
	if c.Verdict != Inconclusive || !c.Design.NoiseUnknown || c.Design.Sessions != [2]int{1, 1} {
		t.Errorf("noise unknown: %+v", c)
	}
}

// TestSessionsLoadedSinceCalibration checks one session a side when the
// host is noisier now than when it was calibrated (run CV 1% then, 8% now,
// session CV 2% both times): the interval takes this comparison's run
// noise, so the A/A rate of p < α stays within the band.
func TestSessionsLoadedSinceCalibration(t *testing.T) {
	const trials, alpha = 2000, 0.05
	_, hi := binomialBand(alpha, trials)
	rng := rand.New(rand.NewPCG(2100, 1))
	then, now := host{0.02, 0.01, "normal"}, host{0.02, 0.08, "normal"}
	rejected := 0
	for range trials {
		c := CompareSessions(now.sessions(rng, 1, 8, 1), now.sessions(rng, 1, 8, 1), then.calibrate(rng), Options{})
		if c.P < alpha {
			rejected++
		}
	}
	rate := float64(rejected) / trials
	t.Logf("rate of p < α %.4f (≤ %.4f)", rate, hi)
	if rate > hi {
		t.Errorf("rate of p < α %.4f, want ≤ %.4f", rate, hi)
	}
}
