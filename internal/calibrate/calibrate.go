// Package calibrate measures a host's session noise: how far the centre
// of a benchmark moves between sessions of one kernel and setup, beyond
// what its runs' own noise explains. It runs back-to-back A/A sessions,
// each a fresh session of children as kdelta run makes them, estimates
// the spread of every metric (stats.EstimateSessionNoise), and keys it by
// host, workload, parameters, run conditions and metric for the store,
// where kdelta compare finds it to judge one session a side.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/workload"
)

// DefaultSessions is how many A/A sessions a calibration runs unless told:
// 7 degrees of freedom, whose Student quantile (2.36) is within a fifth of
// the normal one.
const DefaultSessions = 8

// Options control a calibration.
type Options struct {
	// Sessions is the number of A/A sessions, at least 2; 0 means
	// DefaultSessions.
	Sessions int
	// Runner says how each session runs (repeats, warm-ups, CPUs, policy),
	// as for kdelta run; its Output and Record are not used.
	Runner runner.Options
	// Progress receives a line per session; nil for none.
	Progress io.Writer
	// Store, when set, records the noises (Save).
	Store store.Store
	// Warn, when set, is told each metric that could not be estimated.
	Warn func(string)
}

// A Result is a calibration: the sessions' sets and the noise of every
// benchmark's metrics.
type Result struct {
	Sets   []*result.Set
	Noises []store.Noise
	// Warnings say which metrics could not be estimated, and why.
	Warnings []string
}

// ParseWorkloads parses the workloads of the command line, name[:k=v,...]
// each (workload.ParseSpec).
func ParseWorkloads(args []string) ([]workload.Spec, error) {
	var specs []workload.Spec
	for _, a := range args {
		sp, err := workload.ParseSpec(a)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	return specs, nil
}

// RunWorkloads is Run on the workloads of the command line (name[:k=v,...]
// each), under the runner options setup makes (runner.Setup.Options).
func RunWorkloads(ctx context.Context, args []string, setup runner.Setup, opt Options) (*Result, error) {
	specs, err := ParseWorkloads(args)
	if err != nil {
		return nil, err
	}
	ro, err := setup.Options()
	if err != nil {
		return nil, err
	}
	opt.Runner = *ro
	return Run(ctx, specs, opt)
}

// Run runs opt.Sessions sessions of specs back to back, each its own
// result set with runs of its own session, estimates the session noise of
// every metric and records it in opt.Store. On an error the sessions done
// so far are in the Result.
func Run(ctx context.Context, specs []workload.Spec, opt Options) (*Result, error) {
	n := opt.Sessions
	if n == 0 {
		n = DefaultSessions
	}
	if n < 2 {
		return nil, fmt.Errorf("--sessions: %d; a session noise needs 2 sessions or more", n)
	}
	res := &Result{}
	for i := range n {
		o := opt.Runner
		o.Output, o.Record, o.Session = "", nil, ""
		o.Labels = map[string]string{"calibration": fmt.Sprintf("%d/%d", i+1, n)}
		for k, v := range opt.Runner.Labels {
			o.Labels[k] = v
		}
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "kdelta: calibrate: session %d of %d\n", i+1, n)
		}
		set, err := runner.Run(ctx, specs, &o)
		res.Sets = append(res.Sets, set)
		if err != nil {
			return res, err
		}
	}
	return FromSets(ctx, res.Sets, opt)
}

// FromSets estimates the session noise from sets already measured — A/A
// sessions of one kernel and setup, such as earlier kdelta runs the user
// names (kdelta calibrate --from) — tells opt.Warn what it could not
// estimate and records the rest in opt.Store. Only opt's Warn and Store
// are used.
func FromSets(ctx context.Context, sets []*result.Set, opt Options) (*Result, error) {
	res := &Result{Sets: sets}
	res.Noises, res.Warnings = Estimate(sets, time.Now().UTC())
	for i := range res.Noises {
		res.Noises[i].Source = store.NoiseCalibrated
	}
	for _, w := range res.Warnings {
		if opt.Warn != nil {
			opt.Warn(w)
		}
	}
	if len(res.Noises) == 0 {
		return res, errors.New("calibrate: no session noise could be estimated")
	}
	if opt.Store != nil {
		return res, Save(ctx, opt.Store, res)
	}
	return res, nil
}

// Estimate estimates, from sets of A/A sessions (one session each, or
// more), the session noise of every metric of the first set's benchmarks
// that the others hold too under the same key (host and conditions: a set
// of another host or CPU list is left out of it, with a warning), measured
// at the time given. A metric that cannot be estimated (values ≤ 0, fewer
// than two sessions) is left out with a warning.
func Estimate(sets []*result.Set, measured time.Time) ([]store.Noise, []string) {
	if len(sets) == 0 {
		return nil, nil
	}
	var out []store.Noise
	var warns []string
	for _, b := range sets[0].Benchmarks {
		if b.Skipped != "" {
			warns = append(warns, fmt.Sprintf("%s: skipped: %s", b.Key(), b.Skipped))
			continue
		}
		for _, m := range b.Metrics {
			key := KeyOf(sets[0], b, m.Name)
			var sessions [][]float64
			for _, s := range sets {
				for _, o := range s.Benchmarks {
					if o.Key() != b.Key() {
						continue
					}
					if k := KeyOf(s, o, m.Name); k != key {
						warns = append(warns, fmt.Sprintf("%s: %s left out: measured as %s, not %s", m.Name, s.ID, k, key))
						continue
					}
					ss, _ := o.SessionValues(m.Name)
					sessions = append(sessions, ss...)
				}
			}
			sn, err := stats.EstimateSessionNoise(sessions)
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s %s: %v", b.Key(), m.Name, err))
				continue
			}
			out = append(out, store.Noise{Key: key, Noise: sn, Measured: measured})
		}
	}
	return out, warns
}

// KeyOf is the key under which the session noise of metric of benchmark
// b, in set, is stored: the set's host label, the workload and its
// parameters, and the conditions its first measured run ran under (the
// CPUs the child was allowed and its scheduling policy), which change
// what a session shares.
func KeyOf(set *result.Set, b *result.Benchmark, metric string) store.NoiseKey {
	k := store.NoiseKey{Host: set.Labels["host"], Workload: b.Workload, Params: result.FormatParams(b.Params), Metric: metric}
	if rs := b.Measured(); len(rs) > 0 {
		var c []string
		for _, name := range []string{"cpus_allowed", "policy"} {
			if v := rs[0].Info[name]; v != "" {
				c = append(c, name+"="+v)
			}
		}
		k.Conditions = strings.Join(c, " ")
	}
	return k
}

// Save records the noises of res in st, each replacing the one of its key.
func Save(ctx context.Context, st store.Store, res *Result) error {
	for _, n := range res.Noises {
		if err := st.SaveNoise(ctx, n); err != nil {
			return fmt.Errorf("store session noise of %s: %w", n.Key, err)
		}
	}
	return nil
}

// Lookup returns the session noise of metric of benchmark b in set as
// recorded in st (nil: none), for compare.Options.Noise: unknown when
// nothing is recorded under its key, the store cannot say, or the set
// names no host (an import).
func Lookup(ctx context.Context, st store.Store) func(*result.Set, *result.Benchmark, string) stats.SessionNoise {
	return func(set *result.Set, b *result.Benchmark, metric string) stats.SessionNoise {
		if st == nil || set == nil || set.Labels["host"] == "" {
			// An import, or a set of no named host: no host's noise
			// is its own, and it is judged on the prior.
			return stats.SessionNoise{}
		}
		n, err := st.Noise(ctx, KeyOf(set, b, metric))
		if err != nil {
			return stats.SessionNoise{}
		}
		return n.Noise
	}
}

// ForSet returns the recorded session noises of set's benchmarks, in the
// order of its benchmarks and metrics, for kdelta show; errors other than
// nothing recorded are returned.
func ForSet(ctx context.Context, st store.Store, set *result.Set) ([]store.Noise, error) {
	var out []store.Noise
	for _, b := range set.Benchmarks {
		for _, m := range b.Metrics {
			n, err := st.Noise(ctx, KeyOf(set, b, m.Name))
			switch {
			case errors.Is(err, store.ErrNotFound):
			case err != nil:
				return out, err
			default:
				out = append(out, n)
			}
		}
	}
	return out, nil
}
