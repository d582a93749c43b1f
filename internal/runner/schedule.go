package runner

import (
	"context"

	"github.com/kdelta/kdelta/internal/result"
)

// An Until is the stopping rule of a session: after the first Repeat
// rounds, a benchmark gets more runs while its question is still open and
// it is below MaxRuns. The zero Until is a fixed count: Repeat runs.
type Until struct {
	// More is asked after every batch: it reports, for each benchmark of
	// set in order, whether its question is still open (its verdict
	// inconclusive, its bisect step undecided). It is asked once per set
	// of the session. A nil More (and a nil MoreOf) makes the count fixed.
	More func(set *result.Set) []bool
	// MoreOf, when set, replaces More for a session whose sets are
	// compared with each other (the cells of a job, the baseline among
	// them): it answers for every benchmark of every set at once.
	MoreOf func(sets []*result.Set) [][]bool
	// Batch is how many runs each benchmark that needs more gets before
	// the question is asked again; 0 means 1. Fewer questions mean fewer
	// looks at the data, which keeps a rule that stops on significance
	// closer to its nominal error rate.
	Batch int
	// MaxRuns caps the attempted runs per benchmark (see Attempted). Below
	// Repeat it is Repeat: the first rounds are never cut.
	MaxRuns int
	// Sessions, when set, is asked after More, of the same set: whether
	// the next batch opens a new session, because the session level is
	// what limits a verdict (more runs in this session cannot settle
	// it, more sessions can). A session's batch warms up again and gives
	// each open benchmark a session's runs (Repeat), recorded under a
	// session of its own. Nil, or with MoreOf, batches stay in the
	// session.
	Sessions func(set *result.Set) bool

	repeat int // the session's -r, set by Schedule
}

// A Progress is what the stopping rule knows of one benchmark between
// two batches.
type Progress struct {
	// Open says its question is still open: Until.More said so.
	Open bool
	// Skipped says it cannot run here (Benchmark.Skipped).
	Skipped bool
	// Attempted counts its measured runs so far, whatever their status.
	Attempted int
	// Stalled says the last batch asked for runs of it and brought none
	// (a boot whose guest did not run it): the next would bring none
	// either.
	Stalled bool
	// NewSession says the next batch opens a new session (Until.Sessions).
	NewSession bool
}

// MoreRuns is the one rule that decides whether a benchmark runs more:
// the number of measured runs it gets in the next batch, 0 when it is
// done. It is done when its question is settled, when it is skipped, when
// the last batch brought it nothing, or at u.MaxRuns attempted runs;
// otherwise it gets u.Batch runs, or a session's (Repeat) in a new
// session, fewer where that would pass MaxRuns.
// Failed and skipped runs are attempts: a workload that always fails or
// is always skipped stops like any other, instead of being run (or a
// kernel booted) for ever.
func (u Until) MoreRuns(p Progress) int {
	if !p.Open || p.Skipped || p.Stalled || p.Attempted >= u.MaxRuns {
		return 0
	}
	n := max(u.Batch, 1)
	if p.NewSession {
		n = max(n, u.repeat)
	}
	return min(n, u.MaxRuns-p.Attempted)
}

// Attempted counts b's measured runs attempted: every run but the
// warm-ups, failed, timed-out and skipped ones included. It is what
// MaxRuns bounds.
func Attempted(b *result.Benchmark) int {
	n := 0
	for _, r := range b.Runs {
		if !r.Warmup {
			n++
		}
	}
	return n
}

// A Batch is what the scheduler asks of an executor at a time.
type Batch struct {
	// Warmup and Repeat are the first batch's: Warmup warm-up runs, then
	// Repeat measured runs, of every benchmark. Both are 0 later.
	Warmup, Repeat int
	// Runs, in every later batch, are the measured runs asked of each
	// benchmark, indexed like the executor's Sets and their Benchmarks;
	// 0 for none. It is nil in the first batch.
	Runs [][]int
	// Session, in a later batch, opens a new session (Until.Sessions):
	// Warmup warm-up runs of each benchmark asked for runs, then its
	// runs, all recorded under the new session. An executor whose every
	// batch is a session of its own (a boot) needs nothing more.
	Session bool
}

// First tells whether b is a session's first batch.
func (b Batch) First() bool { return b.Runs == nil }

// Most is the most runs b asks of any benchmark.
func (b Batch) Most() int {
	n := 0
	for _, rs := range b.Runs {
		for _, r := range rs {
			n = max(n, r)
		}
	}
	return n
}

// An Executor performs the runs the scheduler asks for: each run in a
// child of its own on this machine (Run, RunUntil), a boot of a kernel
// under test per batch, or a round of a job's cells, each under its
// knobs.
type Executor interface {
	// Sets are the result sets the runs go into, whose benchmarks the
	// stopping rule counts. Before the first batch there may be none (a
	// boot brings its set home).
	Sets() []*result.Set
	// Run performs one batch and adds its runs to the sets, saving them
	// as it goes, so that an interrupted session keeps what it finished.
	// An executor whose unit of work is larger than one run may do more
	// than asked, never less without a reason recorded in the runs: a
	// boot runs every benchmark of its job and warms up again in its
	// fresh kernel, and a round of cells runs every cell, so that the
	// variants compared stay level. The error is ErrInterrupted when ctx
	// was cancelled, or why the batch could not run or be saved.
	Run(ctx context.Context, b Batch) error
}

// Schedule is the one scheduler of runs: it has x run the first batch
// (warmup warm-ups and repeat measured runs of every benchmark), then,
// for as long as until.MoreRuns gives some benchmark more runs, a batch
// of those. It returns x's error, or nil when the session ended by its
// rule; marking the sets complete is the caller's.
func Schedule(ctx context.Context, x Executor, warmup, repeat int, until Until) error {
	until.MaxRuns = max(until.MaxRuns, repeat)
	until.repeat = repeat
	b := Batch{Warmup: warmup, Repeat: repeat}
	before := map[*result.Benchmark]int{}
	for {
		if err := x.Run(ctx, b); err != nil {
			return err
		}
		if until.More == nil && until.MoreOf == nil {
			return nil
		}
		b = until.next(x.Sets(), b, before)
		if b.Most() == 0 {
			return nil
		}
		if b.Session {
			b.Warmup = warmup
		}
	}
}

// next asks the question once and makes the batch after last: the runs
// MoreRuns gives each benchmark. before holds each benchmark's attempted
// runs before last and is updated for the batch returned.
func (u Until) next(sets []*result.Set, last Batch, before map[*result.Benchmark]int) Batch {
	var open [][]bool
	if u.MoreOf != nil {
		open = u.MoreOf(sets)
	} else {
		for _, s := range sets {
			open = append(open, u.More(s))
		}
	}
	next := Batch{Runs: make([][]int, len(sets))}
	if u.Sessions != nil && u.MoreOf == nil && len(sets) == 1 && anyOpen(open) {
		next.Session = u.Sessions(sets[0])
	}
	for si, s := range sets {
		next.Runs[si] = make([]int, len(s.Benchmarks))
		for bi, b := range s.Benchmarks {
			asked := last.First() || si < len(last.Runs) && bi < len(last.Runs[si]) && last.Runs[si][bi] > 0
			p := Progress{
				Open:      si < len(open) && bi < len(open[si]) && open[si][bi],
				Skipped:   b.Skipped != "",
				Attempted: Attempted(b),
			}
			p.Stalled = asked && p.Attempted == before[b]
			p.NewSession = next.Session
			next.Runs[si][bi] = u.MoreRuns(p)
			before[b] = p.Attempted
		}
	}
	return next
}

// anyOpen tells whether any question of open is open.
func anyOpen(open [][]bool) bool {
	for _, o := range open {
		for _, v := range o {
			if v {
				return true
			}
		}
	}
	return false
}
