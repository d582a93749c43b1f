package bisect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestBaseline drives kdelta run --until-conclusive's question without a
// command line: which benchmarks are still open against the baseline,
// and the line that says why each stopped.
func TestBaseline(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	level := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}
	bl, err := NewBaseline(set(bench(sp, level...)), "base.json", []workload.Spec{sp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The runs judged as independent (--session-noise 0); the prior
	// below, and TestBaselineSessions with the host's noise.
	zero := 0.0
	bl.Compare.SessionNoise = &zero
	skipped := bench(sp)
	skipped.Skipped = "needs root"
	failed := bench(sp)
	failed.Runs = []*result.Run{{Status: result.StatusFailed, Reason: "exit status 1"}}
	key := "until-conclusive: syscall " + result.FormatParams(sp.Values) + ": "
	tests := []struct {
		name    string
		b       *result.Benchmark
		maxRuns int
		open    bool
		stop    string // a prefix of the stop line, after key
	}{
		{"like the baseline", bench(sp, level...), 20, false, "stopped after 8 runs: ~ (ns/call "},
		{"far slower", bench(sp, scaled(1.5, level)...), 20, false, "stopped after 8 runs: regressed (ns/call +50.0% "},
		{"too few runs", bench(sp, 100, 130), 20, true, "stopped after 2 runs: inconclusive"},
		{"too few runs, at --max-runs", bench(sp, 100, 130), 2, true, "reached --max-runs 2: inconclusive"},
		{"skipped", skipped, 20, false, "stopped after 0 runs: skipped: needs root"},
		{"failed", failed, 20, false, "stopped after 0 runs: no measured values"},
	}
	for _, tt := range tests {
		s := set(tt.b)
		if got := bl.Open(s); !slices.Equal(got, []bool{tt.open}) {
			t.Errorf("%s: Open %v, want [%v]", tt.name, got, tt.open)
		}
		stops := StopsOf(bl.Stops(s, tt.maxRuns))
		if len(stops) != 1 || !strings.HasPrefix(stops[0], key+tt.stop) {
			t.Errorf("%s: Stops %q, want one line starting %q", tt.name, stops, key+tt.stop)
		}
	}
	if w := bl.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none", w)
	}
	// Without the host's session noise or a figure given, the prior
	// stands in, and the stop line names it: a 2% change is far below it.
	bl.Compare.SessionNoise = nil
	stops := StopsOf(bl.Stops(set(bench(sp, scaled(1.02, level)...)), 20))
	if len(stops) != 1 || !strings.Contains(stops[0], "session noise ±10.0% assumed for a machine of unknown kind: kdelta calibrate measures this host's") ||
		!strings.Contains(stops[0], "inconclusive") {
		t.Errorf("uncalibrated: Stops %q, want the prior named", stops)
	}
}

// sessionBench is a benchmark of sp whose runs are in sessions, the
// values of each session given by a slice, its ids id and its number as
// the runner makes them.
func sessionBench(sp workload.Spec, id string, sessions ...[]float64) *result.Benchmark {
	b := bench(sp)
	for k, vs := range sessions {
		for _, v := range vs {
			b.Runs = append(b.Runs, &result.Run{Index: len(b.Runs), Status: result.StatusOK, Session: fmt.Sprintf("%s/%d", id, k+1),
				Values: map[string]float64{"ns/call": v, "calls/s": 1e9 / v}})
		}
	}
	return b
}

// TestBaselineSessions drives the question with the host's session noise
// known: across sessions, it asks for a new session when the session
// level limits the verdict, for runs when their noise does, and stops
// once sessions settle it; the stop line names the design judged.
func TestBaselineSessions(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	level := []float64{100, 101, 99, 100.5, 99.5}
	noisy := []float64{100, 125, 80, 110, 90}
	tests := []struct {
		name     string
		noise    stats.SessionNoise
		sessions [][]float64
		open     bool
		session  bool   // the next runs are a new session
		stop     string // a part of the stop line
	}{
		// 10% slower, the host's sessions ±4%: one session a side
		// cannot tell it from two sessions' difference.
		{"session-limited", stats.SessionNoise{SD: 0.04, MeanSD: 0.041, Runs: 5, DF: 7}, [][]float64{scaled(1.1, level)}, true, true,
			"inconclusive (need ≈"},
		// Three sessions at +15%, which agree: settled.
		{"settled by sessions", stats.SessionNoise{SD: 0.04, MeanSD: 0.041, Runs: 5, DF: 7},
			[][]float64{scaled(1.15, level), scaled(1.15, level), scaled(1.15, level)}, false, false,
			"regressed (ns/call +15.0% [+"},
		// No change, the host's sessions ±4%: more sessions than any
		// bound would be needed to tell it from 1%, and it stops.
		{"far below the noise", stats.SessionNoise{SD: 0.04, MeanSD: 0.041, Runs: 5, DF: 7}, [][]float64{level}, false, false,
			"stopped after 5 runs: inconclusive (the change is far below this host's noise) (ns/call +0.00% "},
		// A quiet host and noisy runs: more runs, in this session.
		{"run-limited", stats.SessionNoise{SD: 0.001, MeanSD: 0.002, Runs: 5, DF: 7}, [][]float64{scaled(1.1, noisy)}, true, false,
			"inconclusive (need ≈"},
	}
	for _, tt := range tests {
		noise := func(*result.Set, *result.Benchmark, string) stats.SessionNoise { return tt.noise }
		bl, err := NewBaseline(set(bench(sp, level...)), "base.json", []workload.Spec{sp}, noise)
		if err != nil {
			t.Fatal(err)
		}
		s := set(sessionBench(sp, "now", tt.sessions...))
		if got := bl.Open(s); !slices.Equal(got, []bool{tt.open}) {
			t.Errorf("%s: Open %v, want [%v]", tt.name, got, tt.open)
		}
		if got := bl.Sessions(s); got != tt.session {
			t.Errorf("%s: Sessions %v, want %v", tt.name, got, tt.session)
		}
		design := "vs baseline, 5 runs × 1 session each"
		if len(tt.sessions) > 1 {
			design = fmt.Sprintf("vs baseline, 5 runs × 1 session vs 5 runs × %d sessions", len(tt.sessions))
		}
		stops := StopsOf(bl.Stops(s, 20))
		if len(stops) != 1 || !strings.Contains(stops[0], tt.stop) || !strings.Contains(stops[0], design) || !strings.Contains(stops[0], "session noise ±") {
			t.Errorf("%s: Stops %q, want %q, %q and the session noise", tt.name, stops, tt.stop, design)
		}
		if w := bl.Warnings(); len(w) != 0 {
			t.Errorf("%s: warnings %q, want none", tt.name, w)
		}
	}
}

// TestBaselinePairing checks the baseline's pairing: a counterpart by a
// fallback is said once, and a baseline with none of the workloads is an
// error that lists what it holds.
func TestBaselinePairing(t *testing.T) {
	a, b := spec(t, "syscall:calls=1000"), spec(t, "syscall:calls=2000")
	base := set(bench(b, 100, 101, 99, 100, 100))
	if _, err := NewBaseline(base, "base.json", []workload.Spec{spec(t, "pipe")}, nil); err == nil ||
		!strings.Contains(err.Error(), "--baseline base.json: holds none of the workloads run (it has syscall:") {
		t.Errorf("NewBaseline without the workload: %v", err)
	}
	bl, err := NewBaseline(base, "base.json", []workload.Spec{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := set(bench(a, 100, 100, 101, 99, 100))
	bl.Open(s)
	bl.Stops(s, 20)
	if w := bl.Warnings(); len(w) != 1 || !strings.Contains(w[0], "(parameters differ)") {
		t.Errorf("warnings %q, want the fallback's once", w)
	}
}

// TestUntilConclusiveErrorRate simulates kdelta run --until-conclusive
// against a baseline of 5 runs: 5 runs first, then one more at a time up
// to 20, stopping at the first conclusive verdict (α 0.05, 1% band), on
// timings at CV 2%.
//
// Stopping on the first significant look is a sequential test, so in an
// A/A comparison it calls improved or regressed more often than a single
// look at 20 runs. The bound asserted, 5%, is α: with the 1% band on top
// of p < α, a single look errs far less often than α, and the sixteen
// looks are strongly correlated (each adds one run to the last). The
// figures are logged; a 5% true change must be found (in the right
// direction) in at least 80% of the trials.
func TestUntilConclusiveErrorRate(t *testing.T) {
	const trials, first, maxRuns, cv = 1000, 5, 20, 0.02
	opt := stats.Options{Alpha: 0.05, Threshold: 0.01}
	run := func(seed uint64, change float64) (stats.Verdict, int) {
		rng := rand.New(rand.NewPCG(seed, 11))
		base := simRuns(rng, first, 100, cv)
		m := simRuns(rng, first, 100*(1+change), cv)
		for {
			c := stats.Compare(base, m, opt)
			if (compare.Question{Comparison: c}).Settled() || len(m) >= maxRuns {
				return c.Verdict, len(m)
			}
			m = append(m, simRuns(rng, 1, 100*(1+change), cv)...)
		}
	}
	count := func(change float64) (map[stats.Verdict]int, float64) {
		n := map[stats.Verdict]int{}
		runs := 0
		for seed := range uint64(trials) {
			v, r := run(seed, change)
			n[v]++
			runs += r
		}
		return n, float64(runs) / trials
	}
	aa, aaRuns := count(0)
	wrong := aa[stats.Improved] + aa[stats.Regressed]
	t.Logf("A/A, %d trials: improved %d, regressed %d, ~ %d, inconclusive at %d runs %d; mean runs %.1f",
		trials, aa[stats.Improved], aa[stats.Regressed], aa[stats.NoChange], maxRuns, aa[stats.Inconclusive], aaRuns)
	if rate := float64(wrong) / trials; rate > 0.05 {
		t.Errorf("A/A: %d false verdicts in %d trials (%.3f), want at most 0.05", wrong, trials, rate)
	}
	slow, slowRuns := count(0.05)
	t.Logf("5%% slower, %d trials: regressed %d, improved %d, ~ %d, inconclusive %d; mean runs %.1f",
		trials, slow[stats.Regressed], slow[stats.Improved], slow[stats.NoChange], slow[stats.Inconclusive], slowRuns)
	if slow[stats.Improved] > 0 || float64(slow[stats.Regressed])/trials < 0.8 {
		t.Errorf("5%% slower: regressed in %d of %d trials, improved in %d; want at least 80%% and none", slow[stats.Regressed], trials, slow[stats.Improved])
	}
}

// TestUntilConclusiveSessions simulates kdelta run --until-conclusive
// against a baseline of another session with the host's session noise
// known, through the Baseline's own questions: runs nested in sessions
// (session offsets at 3%, runs at CV 2%, log-normal), the noise estimated
// from 8 A/A sessions of 5 runs as kdelta calibrate does, a baseline of
// one session of 5 runs, then a first session of 5 runs, and after each
// look a new session of 5 runs when Sessions says so, else one more run
// in the session, up to 20 runs.
//
// Stopping at the first conclusive look is a sequential test, and each
// new session is a look with news in it: one look errs in 2.9-3.4% of
// A/A trials (1 against 1 to 4 sessions, at α 5% and the 1% band), the
// loop held to one session in 4.9%, the loop adding sessions in 7.0%.
// The bound asserted is 1.5α (7.5%), the measured rate and what the
// extra looks cost; fixed seeds make it a regression check. A 15% change must
// be found more often than by the loop held to one session (more runs in
// it cannot shrink the two sessions' difference), which is what adding
// sessions is for: 94% against 76%.
func TestUntilConclusiveSessions(t *testing.T) {
	const trials, per, maxRuns, sessionCV, runCV = 1000, 5, 20, 0.03, 0.02
	sp := spec(t, "syscall:calls=1000")
	session := func(rng *rand.Rand, n int, level float64) []float64 {
		return simRuns(rng, n, level*math.Exp(sessionCV*rng.NormFloat64()), runCV)
	}
	// run is one trial: the verdict and the sessions and runs it took.
	run := func(seed uint64, change float64, sessions bool) (stats.Verdict, int, int) {
		rng := rand.New(rand.NewPCG(seed, 15))
		var aa [][]float64
		for range 8 {
			aa = append(aa, session(rng, per, 100))
		}
		noise, err := stats.EstimateSessionNoise(aa)
		if err != nil {
			t.Fatal(err)
		}
		base := set(sessionBench(sp, "base", session(rng, per, 100)))
		bl, err := NewBaseline(base, "base.json", []workload.Spec{sp}, func(*result.Set, *result.Benchmark, string) stats.SessionNoise { return noise })
		if err != nil {
			t.Fatal(err)
		}
		level := 100 * (1 + change)
		offset := level * math.Exp(sessionCV*rng.NormFloat64())
		ss := [][]float64{simRuns(rng, per, offset, runCV)}
		for {
			s := set(sessionBench(sp, "now", ss...))
			n := len(s.Benchmarks[0].Measured())
			if !bl.Open(s)[0] || n >= maxRuns {
				return bl.verdicts(s)[0].Comparison.Verdict, len(ss), n
			}
			if sessions && bl.Sessions(s) {
				offset = level * math.Exp(sessionCV*rng.NormFloat64())
				ss = append(ss, simRuns(rng, min(per, maxRuns-n), offset, runCV))
				continue
			}
			last := len(ss) - 1
			ss[last] = append(ss[last], simRuns(rng, 1, offset, runCV)...)
		}
	}
	count := func(change float64, sessions bool) (map[stats.Verdict]int, float64) {
		n := map[stats.Verdict]int{}
		used := 0
		for seed := range uint64(trials) {
			v, k, _ := run(seed, change, sessions)
			n[v]++
			used += k
		}
		return n, float64(used) / trials
	}
	aa, aaSessions := count(0, true)
	aaOne, _ := count(0, false)
	wrong := aa[stats.Improved] + aa[stats.Regressed]
	t.Logf("A/A, %d trials: improved %d, regressed %d, ~ %d, inconclusive %d; mean sessions %.2f; held to one session: %d false verdicts",
		trials, aa[stats.Improved], aa[stats.Regressed], aa[stats.NoChange], aa[stats.Inconclusive], aaSessions, aaOne[stats.Improved]+aaOne[stats.Regressed])
	if band := 1.5 * 0.05; float64(wrong)/trials > band {
		t.Errorf("A/A: %d false verdicts in %d trials, want at most %.3f of them", wrong, trials, band)
	}
	slow, slowSessions := count(0.15, true)
	one, _ := count(0.15, false)
	t.Logf("15%% slower, %d trials: regressed %d with sessions added (mean %.2f sessions), %d held to one session",
		trials, slow[stats.Regressed], slowSessions, one[stats.Regressed])
	if slow[stats.Improved] > 0 || slow[stats.Regressed] <= one[stats.Regressed] || slowSessions <= 1 {
		t.Errorf("15%% slower: regressed in %d of %d trials adding sessions (mean %.2f), %d in one session, improved %d; want more with sessions",
			slow[stats.Regressed], trials, slowSessions, one[stats.Regressed], slow[stats.Improved])
	}
}
