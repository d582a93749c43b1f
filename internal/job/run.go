package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

// RunOptions say how Run runs the cells.
type RunOptions struct {
	// Runner is the template of every run: Repeat and Warmup are the
	// rounds; CPUs, FIFO, Timeout, the OnReady hooks, Version, Command
	// and Labels apply to every cell. Output and Record are not used:
	// Save is.
	Runner *runner.Options
	// Order is interleaved, random or blocks (see Job.Order).
	Order string
	Seed  uint64
	// Knobs is the session that sets each cell's knobs; nil when no cell
	// sets any.
	Knobs *knob.Session
	// Env takes the fingerprint of a cell, with its knobs set, and the
	// tuning warnings; nil for none.
	Env func() (*sysinfo.Fingerprint, []string)
	// Save is called with a cell's set after each of its runs.
	Save func(cell int, set *result.Set) error
	// Until is the stopping rule after the rounds (runner.Until; its
	// More or MoreOf sees the cells' sets): each batch is one more round
	// of every cell, so the variants compared stay level. The zero Until
	// runs the rounds alone.
	Until runner.Until
	// Progress receives a status line per run (a terminal).
	Progress io.Writer
}

// InfoPrefix starts the key of each knob's value in a run's Info.
const InfoPrefix = "knob."

// Run runs specs in every cell, one run at a time: before a cell's run
// its knobs are set (every other knob of the session is given back its
// own value), so that with the interleaved order the cells alternate run
// by run and the machine's drift falls on all of them alike. Each cell
// gets a result set labelled with its labels, whose fingerprint is taken
// with its knobs set and whose runs record the knobs' values as read back.
// The sets hold every run attempted; the error is runner.ErrInterrupted
// when ctx was cancelled, or why a knob could not be set or a set saved.
func Run(ctx context.Context, cells []Cell, specs []workload.Spec, opt RunOptions) ([]*result.Set, error) {
	if len(cells) == 0 {
		return nil, errors.New("no cells to run")
	}
	r := &cellRunner{opt: opt, specs: specs, cells: cells, session: opt.Runner.Session}
	for _, c := range cells {
		o := *opt.Runner
		o.Labels = map[string]string{}
		for k, v := range opt.Runner.Labels {
			o.Labels[k] = v
		}
		for k, v := range c.Labels {
			o.Labels[k] = v
		}
		o.Env = nil
		r.sets = append(r.sets, runner.NewSet(specs, &o))
	}
	// The cells alternate run by run: they share one session, the first
	// set's id unless the caller names one, so that their comparison is
	// within sessions.
	if r.session == "" {
		r.session = r.sets[0].ID
	}
	for i := range r.sets {
		if err := r.save(i); err != nil {
			return r.sets, err
		}
	}
	err := runner.Schedule(ctx, r, opt.Runner.Warmup, opt.Runner.Repeat, opt.Until)
	if opt.Progress != nil {
		fmt.Fprint(opt.Progress, "\r\033[K")
	}
	if err != nil {
		for i := range r.sets {
			if serr := r.save(i); serr != nil && !errors.Is(err, runner.ErrInterrupted) {
				return r.sets, errors.Join(err, serr)
			}
		}
		return r.sets, err
	}
	for i, s := range r.sets {
		s.Complete = true
		if err := r.save(i); err != nil {
			return r.sets, err
		}
	}
	return r.sets, nil
}

// A cellRunner is the runner.Executor of Run: its batches are rounds of
// the cells, each cell's runs under its knobs.
type cellRunner struct {
	opt    RunOptions
	specs  []workload.Spec
	cells  []Cell
	sets   []*result.Set
	done   int
	rounds int // rounds run, for the random order's seed
	// session is the one session of every cell's runs.
	session string
}

func (r *cellRunner) Sets() []*result.Set { return r.sets }

// Run runs batch b: the first as the order says (interleaved or random
// rounds, or each cell's runs in a block), every later one as one more
// round of every cell, whatever b asks of each: a variant that stopped
// while the baseline went on would no longer be level with it.
func (r *cellRunner) Run(ctx context.Context, b runner.Batch) error {
	if !b.First() {
		return r.round(ctx, false)
	}
	if r.opt.Order == "blocks" {
		for i := range r.cells {
			for round := 0; round < b.Warmup+b.Repeat; round++ {
				if err := r.step(ctx, i, round < b.Warmup); err != nil {
					return err
				}
			}
		}
		r.rounds = b.Warmup + b.Repeat
		return nil
	}
	for round := 0; round < b.Warmup+b.Repeat; round++ {
		if err := r.round(ctx, round < b.Warmup); err != nil {
			return err
		}
	}
	return nil
}

func (r *cellRunner) save(i int) error {
	if r.opt.Save == nil {
		return nil
	}
	return r.opt.Save(i, r.sets[i])
}

// round runs one run of every cell, in order, or shuffled from the seed
// and the round number with the random order.
func (r *cellRunner) round(ctx context.Context, warm bool) error {
	round := r.rounds
	r.rounds++
	order := make([]int, len(r.cells))
	for i := range order {
		order[i] = i
	}
	if r.opt.Order == "random" {
		rng := rand.New(rand.NewPCG(r.opt.Seed, uint64(round)))
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	}
	for _, i := range order {
		if err := r.step(ctx, i, warm); err != nil {
			return err
		}
	}
	return nil
}

// count is the runs of b, warm-ups or measured ones, that were attempted.
func count(b *result.Benchmark, warm bool) int {
	n := 0
	for _, run := range b.Runs {
		if run.Warmup == warm && run.Status != result.StatusSkipped {
			n++
		}
	}
	return n
}

// step sets cell i's knobs and runs one run of each of its benchmarks
// that is not skipped.
func (r *cellRunner) step(ctx context.Context, i int, warm bool) error {
	if ctx.Err() != nil {
		return runner.ErrInterrupted
	}
	c, set := r.cells[i], r.sets[i]
	var idx []int
	var specs []workload.Spec
	for j, b := range set.Benchmarks {
		if b.Skipped == "" {
			idx = append(idx, j)
			specs = append(specs, r.specs[j])
		}
	}
	if len(specs) == 0 {
		return nil
	}
	var values map[string]string
	if r.opt.Knobs != nil {
		if err := r.opt.Knobs.Apply(c.Settings); err != nil {
			return err
		}
		values = r.opt.Knobs.Values()
	}
	if set.Env == nil && r.opt.Env != nil {
		set.Env, set.Warnings = r.opt.Env()
	}
	o := *r.opt.Runner
	o.Repeat, o.Warmup = 1, 0
	if warm {
		o.Repeat, o.Warmup = 0, 1
	}
	o.Output, o.Record, o.Progress, o.Env, o.Warnings = "", nil, nil, nil, nil
	o.Session = r.session
	if r.opt.Progress != nil {
		r.done++
		what := "run"
		if warm {
			what = "warm-up"
		}
		name := c.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(r.opt.Progress, "\r\033[K[%d] %s: %s %d", r.done, name, what, count(set.Benchmarks[idx[0]], warm)+1)
	}
	tmp, err := runner.Run(ctx, specs, &o)
	for k, tb := range tmp.Benchmarks {
		b := set.Benchmarks[idx[k]]
		for _, run := range tb.Runs {
			if run.Status != result.StatusSkipped {
				run.Index = count(b, run.Warmup)
			}
			if len(values) > 0 {
				if run.Info == nil {
					run.Info = map[string]string{}
				}
				for key, v := range values {
					run.Info[InfoPrefix+key] = v
				}
			}
			b.Runs = append(b.Runs, run)
		}
		if tb.Skipped != "" {
			b.Skipped = tb.Skipped
		}
	}
	if serr := r.save(i); serr != nil {
		return serr
	}
	return err
}
