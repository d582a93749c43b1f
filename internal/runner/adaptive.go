package runner

import (
	"context"
	"fmt"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/workload"
)

// An Until says when RunUntil stops adding runs.
type Until struct {
	// More is asked after the first Repeat rounds, and again after every
	// batch of runs: it reports, for each benchmark of the set in order,
	// whether that benchmark needs more runs. A nil More, or a slice with
	// no true, ends the session.
	More func(set *result.Set) []bool
	// Batch is how many runs each benchmark that needs more gets before
	// More is asked again; 0 means 1. Fewer questions mean fewer looks at
	// the data, which keeps a rule that stops on significance closer to
	// its nominal error rate.
	Batch int
	// MaxRuns caps the runs per benchmark, warm-ups aside, counting the
	// failed ones so that a benchmark that always fails cannot go on for
	// ever. Below Repeat it is Repeat.
	MaxRuns int
}

// RunUntil runs specs as Run does, then keeps adding runs while
// until.More asks for them: in each batch, run k of every benchmark that
// needs more is taken before run k+1 of any, so the added runs stay
// interleaved. A benchmark stops at until.MaxRuns runs or when it is
// skipped. The result set is saved (Record, Output) after every run and is
// Complete only when the session ends normally; the error is as Run's.
func RunUntil(ctx context.Context, specs []workload.Spec, opt *Options, until Until) (*result.Set, error) {
	set, err := Run(ctx, specs, opt)
	if err != nil || until.More == nil {
		return set, err
	}
	// As Run saves: the store's hook, then the file.
	save := func() error {
		if opt.Record != nil {
			if err := opt.Record(set); err != nil {
				return err
			}
		}
		if opt.Output == "" {
			return nil
		}
		return result.Save(opt.Output, set)
	}
	batch := max(until.Batch, 1)
	maxRuns := max(until.MaxRuns, opt.Repeat)
	// attempted counts each benchmark's runs other than warm-ups.
	attempted := func(b *result.Benchmark) int {
		n := 0
		for _, r := range b.Runs {
			if !r.Warmup && r.Status != result.StatusSkipped {
				n++
			}
		}
		return n
	}
	for {
		more := until.More(set)
		var todo []int
		for i, b := range set.Benchmarks {
			if i < len(more) && more[i] && b.Skipped == "" && attempted(b) < maxRuns {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 {
			break
		}
		set.Complete = false
		for range batch {
			for _, i := range todo {
				b := set.Benchmarks[i]
				idx := attempted(b)
				if b.Skipped != "" || idx >= maxRuns {
					continue
				}
				if ctx.Err() != nil {
					return set, finish(set, save, ErrInterrupted)
				}
				if opt.Progress != nil {
					fmt.Fprintf(opt.Progress, "\r\033[K[more, up to %d] %s %s", maxRuns, b.Workload, runName(false, idx))
				}
				if err := addRun(ctx, set, b, specs[i], opt, idx, false, save); err != nil {
					return set, err
				}
			}
		}
	}
	if opt.Progress != nil {
		fmt.Fprint(opt.Progress, "\r\033[K")
	}
	set.Complete = true
	return set, save()
}
