package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// nothingMeasured is the error of a session in which a benchmark measured
// nothing: every run failed, timed out or was skipped, or the workload
// cannot run here. Its status is ExitBad, as stat's for a failed run, so
// that a script or CI job never reads a run that measured nothing as a
// success. The sets and what they hold are written as usual before it.
func nothingMeasured(sets []*result.Set) error {
	var errs []error
	for _, s := range sets {
		if s == nil {
			continue
		}
		for _, b := range s.Benchmarks {
			if len(b.Measured()) > 0 {
				continue
			}
			name := strings.TrimSuffix(b.Key(), ":")
			if v := s.Labels[result.VariantParam]; v != "" && len(sets) > 1 {
				name += " (variant " + v + ")"
			}
			errs = append(errs, fmt.Errorf("%s: nothing measured: %s", name, whyNone(b)))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &exitError{code: ExitBad, err: errors.Join(errs...)}
}

// whyNone says why b has no measured run: its skip reason, or the first
// failed run's status and reason.
func whyNone(b *result.Benchmark) string {
	if b.Skipped != "" {
		return "skipped: " + b.Skipped
	}
	for _, r := range b.Runs {
		if r.Warmup && len(b.Runs) > 1 {
			continue
		}
		if r.Status != result.StatusOK {
			why := r.Status
			if r.Reason != "" {
				why += ": " + r.Reason
			}
			return fmt.Sprintf("run %d %s", r.Index+1, why)
		}
	}
	if len(b.Runs) == 0 {
		return "no run was made"
	}
	return "no run counts (warm-ups only)"
}

// failUnmeasured is --fail-on's error for a comparison with a side that
// has no measured runs of a benchmark: a gate cannot pass what it could
// not judge.
func failUnmeasured(failOn string, r *compare.Result) error {
	un := r.Unmeasured()
	if failOn == "" || len(un) == 0 {
		return nil
	}
	return &exitError{code: ExitBad, err: fmt.Errorf("--fail-on %s: cannot judge %s", failOn, un[0])}
}
