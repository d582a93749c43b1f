package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/bisect"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

// untilFlags are kdelta run's adaptive repeats: --until-conclusive
// --baseline REF --max-runs N.
type untilFlags struct {
	on       bool
	baseline string
	maxRuns  int
	maxFlag  *pflag.Flag // --max-runs, to tell it given from its default
	noise    sessionNoiseFlag
	// base is the baseline's question, once rule made it; stops say why
	// each workload stopped.
	base  *bisect.Baseline
	stops []string
}

func (u *untilFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&u.on, "until-conclusive", false, "add runs until each workload's first metric has a conclusive verdict against --baseline (improved, regressed or ~), up to --max-runs; with the host's session noise calibrated, new sessions of -r runs when the session level limits the verdict")
	f.StringVar(&u.baseline, "baseline", "", "with --until-conclusive: the result set to compare with")
	f.IntVar(&u.maxRuns, "max-runs", 20, "with --until-conclusive: measured runs per workload at most")
	u.maxFlag = f.Lookup("max-runs")
	u.noise.register(f)
}

// rule checks the flags and returns kdelta run's stopping rule: -r runs,
// or with --until-conclusive one more run at a time of each workload whose
// question against the baseline (bisect.Baseline) is open, or a new
// session of -r runs when the session level limits it, up to --max-runs. The baseline is looked up in the store (storeFlag) as
// kdelta compare does.
func (u *untilFlags) rule(ctx context.Context, storeFlag string, specs []workload.Spec, repeat int) (runner.Until, error) {
	if !u.on {
		if u.baseline != "" || u.maxFlag != nil && u.maxFlag.Changed {
			return runner.Until{}, errors.New("--baseline and --max-runs: only with --until-conclusive")
		}
		return runner.Until{}, nil
	}
	if u.baseline == "" {
		return runner.Until{}, errors.New("--until-conclusive: needs --baseline REF")
	}
	if u.maxRuns < repeat {
		return runner.Until{}, fmt.Errorf("--max-runs: %d is fewer than -r %d", u.maxRuns, repeat)
	}
	refs := newResolver(ctx, storeFlag)
	base, err := refs.Set(u.baseline)
	refs.Close()
	if err != nil {
		return runner.Until{}, fmt.Errorf("--baseline: %w", err)
	}
	if u.base, err = bisect.NewBaseline(base, u.baseline, specs, storeNoise(ctx, storeFlag)); err != nil {
		return runner.Until{}, err
	}
	if u.base.Compare.SessionNoise, err = u.noise.value(); err != nil {
		return runner.Until{}, err
	}
	return runner.Until{Batch: 1, MaxRuns: u.maxRuns, More: u.base.Open, Sessions: u.base.Sessions}, nil
}

// finish says, after the session, the pairing's warnings on stderr and
// notes why each workload of set stopped, for report.
func (u *untilFlags) finish(stderr io.Writer, set *result.Set) {
	if u.base == nil || set == nil {
		return
	}
	stops := report.UntilStops(u.base.Stops(set, u.maxRuns))
	for _, w := range u.base.Warnings() {
		fmt.Fprintf(stderr, "kdelta: warning: %s\n", w)
	}
	u.stops = append(u.stops, stops...)
}

// report prints why each workload stopped, after the run's summary.
func (u *untilFlags) report(w io.Writer) {
	for _, s := range u.stops {
		fmt.Fprintln(w, s)
	}
}
