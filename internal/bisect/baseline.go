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
// open (runner.Until.More): only an inconclusive comparison can be
// settled by runs, and across sessions not one whose change is far below
// the host's session noise (stats' BelowNoise: more sessions than any
// bound would be needed).
func (bl *Baseline) Open(set *result.Set) []bool {
	var more []bool
	for _, v := range bl.verdicts(set) {
		acrossSessions := v.Design.Runs != [2]int{} && !v.Design.Shared
		more = append(more, v.Verdict == stats.Inconclusive && v.A.N > 0 && !(acrossSessions && v.BelowNoise))
	}
	return more
}

// Sessions reports whether the next runs of set should be a new session:
// a benchmark's open question is limited by the session level, so that
// only more sessions can settle it (stats' NeedSessions).
func (bl *Baseline) Sessions(set *result.Set) bool {
	for _, v := range bl.verdicts(set) {
		if v.Verdict == stats.Inconclusive && v.A.N > 0 && v.NeedSessions > 0 {
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
		stops = append(stops, Stop{Comparison: v.Comparison, Bench: v.bench, Metric: v.metric, Why: v.why,
			Conclusive: conclusive(v.Comparison), Runs: v.runs, MaxRuns: maxRuns})
	}
	return stops
}

// conclusive tells whether --until-conclusive stops on c: improved,
// regressed or ~ (a comparison that was made).
func conclusive(c stats.Comparison) bool { return c.A.N > 0 && c.Verdict != stats.Inconclusive }

// A baselineVerdict is one benchmark against the baseline; A.N is 0 when
// they were not compared, and why says why.
type baselineVerdict struct {
	stats.Comparison
	bench, metric, why string
	runs               int
}

// verdicts compares each benchmark of set with its counterpart in the
// baseline on its first metric.
func (bl *Baseline) verdicts(set *result.Set) []baselineVerdict {
	var vs []baselineVerdict
	for _, b := range set.Benchmarks {
		v := baselineVerdict{bench: strings.TrimSpace(b.Workload + " " + result.FormatParams(b.Params)), runs: len(b.Measured())}
		m, err := MetricOf(b, "")
		switch {
		case err != nil:
			v.why = err.Error()
		case b.Skipped != "":
			v.why = "skipped: " + b.Skipped
		case len(b.Values(m.Name)) == 0:
			v.why = "no measured values"
		default:
			v.metric = m.Name
			if v.Comparison, err = bl.compareWith(set, b, m.Name); err != nil {
				v.why = "not compared with the baseline: " + err.Error()
			}
		}
		vs = append(vs, v)
	}
	return vs
}

// compareWith compares b's metric, of set, with its counterpart in the
// baseline, across sessions: with the host's session noise, or, unknown,
// the prior (acrossSessions).
func (bl *Baseline) compareWith(set *result.Set, b *result.Benchmark, metric string) (stats.Comparison, error) {
	o, note, err := Counterpart(b, len(set.Benchmarks), bl.set)
	if err != nil {
		return stats.Comparison{}, err
	}
	bl.warn(note)
	return acrossSessions(bl.Compare, bl.noise, bl.set, o, set, b, metric)
}

func (bl *Baseline) warn(w string) {
	if w != "" && !slices.Contains(bl.warnings, w) {
		bl.warnings = append(bl.warnings, w)
	}
}
