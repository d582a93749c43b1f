package profile

import (
	"context"
	"errors"
	"fmt"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

// Runs does n profiled runs of every benchmark of set, whose benchmarks
// are specs in order, after its measured runs: each in a fresh child with
// the measured runs' placement, policy and timeout, and perf record
// attached at its ready handshake. Sampling perturbs timing, so each
// profile and its run go to the benchmark's Profiles, never to its Runs.
//
// When perf cannot record here, every benchmark gets one profile that says
// why and nothing runs; a profiled run that fails gets a profile that says
// so. The error is runner.ErrInterrupted when ctx was cancelled.
func Runs(ctx context.Context, set *result.Set, specs []workload.Spec, base *runner.Options, o Options, n int) error {
	if len(specs) != len(set.Benchmarks) {
		return fmt.Errorf("profile: %d specs for %d benchmarks", len(specs), len(set.Benchmarks))
	}
	if err := Check(o); err != nil {
		for _, b := range set.Benchmarks {
			if b.Skipped == "" {
				b.Profiles = append(b.Profiles, result.Profile{Source: "perf record", Event: o.event(), Unavailable: err.Error()})
			}
		}
		return nil
	}
	for round := 0; round < n; round++ {
		for i, sp := range specs {
			b := set.Benchmarks[i]
			if b.Skipped != "" {
				continue
			}
			if ctx.Err() != nil {
				return runner.ErrInterrupted
			}
			if base.Progress != nil {
				fmt.Fprintf(base.Progress, "\r\033[K%s profiled run %d/%d", b.Workload, round+1, n)
			}
			var got *result.Profile
			opt := &runner.Options{
				Repeat:  1,
				CPUs:    base.CPUs,
				FIFO:    base.FIFO,
				Timeout: base.Timeout,
				Version: base.Version,
				OnReady: Hook(o, func(p result.Profile) { got = &p }),
			}
			s, err := runner.Run(ctx, []workload.Spec{sp}, opt)
			var run *result.Run
			if len(s.Benchmarks) == 1 && len(s.Benchmarks[0].Runs) > 0 {
				run = s.Benchmarks[0].Runs[0]
				run.Index = round
			}
			switch {
			case got != nil:
				if got.Run != nil {
					got.Run.Index = round
				}
			case run != nil:
				got = &result.Profile{Source: "perf record", Event: o.event(), Run: run,
					Unavailable: fmt.Sprintf("profiled run %s: %s", run.Status, run.Reason)}
			default:
				got = &result.Profile{Source: "perf record", Event: o.event(), Unavailable: "profiled run did not start"}
			}
			if run != nil && run.Status != result.StatusOK && got.Unavailable == "" {
				got.Warnings = append(got.Warnings, fmt.Sprintf("the profiled run ended %s: %s", run.Status, run.Reason))
			}
			b.Profiles = append(b.Profiles, *got)
			if errors.Is(err, runner.ErrInterrupted) {
				return err
			}
		}
	}
	if base.Progress != nil {
		fmt.Fprint(base.Progress, "\r\033[K")
	}
	return nil
}
