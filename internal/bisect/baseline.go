package bisect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/workload"
)

// A Baseline is the question kdelta run --until-conclusive asks of each
// benchmark: has its first metric a conclusive verdict (improved,
// regressed or ~) against its counterpart in a baseline set? The
// counterpart is the judge's (Counterpart), the verdicts are kdelta
// compare's with its defaults (α 0.05, 1% noise band). Stopping when a
// verdict first looks conclusive is a sequential test: it errs somewhat
// more often than a single comparison at the same α
// (TestUntilConclusiveErrorRate measures how much).
//
// The baseline is another session than the runs now. With the host's
// session noise known (kdelta calibrate) the verdict is kdelta compare's
// across sessions, and when the session level is what limits it (more
// sessions would settle it, more runs in this one would not) the
// question asks for a new session (Sessions). Without it the prior
// session noise for the kind of machine stands in, and the verdict names
// it; "need ≈K sessions" is then under the assumed noise.
// Each new session is a look with news in it, and the loop that adds
// them errs more often than one that cannot (TestUntilConclusiveSessions:
// 7% of A/A trials against 4.9%), and finds a change the session noise
// hides from one session each far more often (94% against 76%).
type Baseline struct {
	// Compare holds the options of every comparison with the baseline
	// (its SessionNoise is --session-noise); the zero value is kdelta
	// compare's defaults.
	Compare compare.Options
	set     *result.Set
	noise   func(*result.Set, *result.Benchmark, string) stats.SessionNoise
	// warnings are the pairing's, each once.
	warnings []string
}

// NewBaseline returns the question against base, which the user named
// ref, for the workloads of specs; it fails when base holds none of them.
// noise gives the host's session noise, as compare.Options.Noise; nil
// knows none.
func NewBaseline(base *result.Set, ref string, specs []workload.Spec, noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise) (*Baseline, error) {
	for _, sp := range specs {
		b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values)}
		if _, _, err := Counterpart(b, len(specs), base); err == nil {
			return &Baseline{set: base, noise: noise}, nil
		}
	}
	var keys []string
	for _, o := range base.Benchmarks {
		keys = append(keys, o.Key())
	}
	return nil, fmt.Errorf("--baseline %s: holds none of the workloads run (it has %s)", ref, strings.Join(keys, "; "))
}

// Open reports, for each benchmark of set, whether its question is still
// open (runner.Until.More), as compare.Question.Open says: only an
// inconclusive comparison can be settled by runs, and across sessions
// not one whose change is far below the session noise the verdict rests
// on (stats' BelowNoise: more sessions than any bound would be needed).
func (bl *Baseline) Open(set *result.Set) []bool {
	var more []bool
	for _, v := range bl.verdicts(set) {
		more = append(more, v.Open())
	}
	return more
}

// Sessions reports whether the next runs of set should be a new session:
// a benchmark's open question is limited by the session level, so that
// only more sessions can settle it (stats' NeedSessions).
func (bl *Baseline) Sessions(set *result.Set) bool {
	for _, v := range bl.verdicts(set) {
		if !v.Settled() && v.Comparison.A.N > 0 && v.Comparison.NeedSessions > 0 {
			return true
		}
	}
	return false
}

// Warnings are what pairing the benchmarks with the baseline's found
// worth saying (a counterpart matched by a fallback), each once.
func (bl *Baseline) Warnings() []string { return bl.warnings }

// A Stop is why one benchmark of kdelta run --until-conclusive stopped:
// its comparison with the baseline on Metric (A.N is 0 when they were
// not compared, and Why says why), whether that is conclusive, its runs,
// and MaxRuns, --max-runs, which its runs may have reached.
type Stop struct {
	stats.Comparison
	Bench, Metric, Why string
	Conclusive         bool
	Runs, MaxRuns      int
}

// Stops says why each benchmark of set stopped, as kdelta run prints
// them after its summary; maxRuns is --max-runs.
func (bl *Baseline) Stops(set *result.Set, maxRuns int) []Stop {
	var stops []Stop
	for _, v := range bl.verdicts(set) {
		stops = append(stops, Stop{Comparison: v.Comparison, Bench: v.Bench, Metric: v.Metric, Why: v.Why,
			Conclusive: v.Settled(), Runs: v.runs, MaxRuns: maxRuns})
	}
	return stops
}

// A baselineVerdict is one benchmark's question against the baseline
// (its Why says why it was not compared, else the verdict), with the
// runs it was asked over.
type baselineVerdict struct {
	compare.Question
	runs int
}

// verdicts asks of each benchmark of set its question against its
// counterpart in the baseline on its first metric: the one "each variant
// against the first" (compare.VersusFirst), across sessions, with the
// host's session noise, or, unknown, the prior.
func (bl *Baseline) verdicts(set *result.Set) []baselineVerdict {
	opt := bl.Compare
	opt.Noise = bl.noise
	var vs []baselineVerdict
	for _, q := range compare.VersusFirst([]*result.Set{bl.set, set}, opt, compare.Asking{Pairing: pairing}) {
		bl.warn(q.Note)
		v := baselineVerdict{Question: q}
		for _, b := range set.Benchmarks {
			if b.Key() == q.Key {
				v.runs = len(b.Measured())
				break
			}
		}
		vs = append(vs, v)
	}
	return vs
}

func (bl *Baseline) warn(w string) {
	if w != "" && !slices.Contains(bl.warnings, w) {
		bl.warnings = append(bl.warnings, w)
	}
}
