package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

func newRunCmd() *cobra.Command {
	var s sessionFlags
	c := &cobra.Command{
		Use:   "run [WORKLOAD[:k=v,...]]...",
		Short: "Run workloads, each run in a child process of its own",
		Long: `Run workloads, each measured run in a fresh child process with the
requested CPU affinity and scheduling policy. Runs are interleaved (run 1 of
every workload, then run 2, ...). With -o the result set is rewritten after
every run, so an interrupted run keeps what it finished; the store (kdelta
results) records it after every run too, unless --no-store.

--quick runs a short suite of every seed workload (under two minutes on a
two-core machine) with -r 5 unless -r is given.`,
		RunE: func(c *cobra.Command, args []string) error {
			if s.jf.used() {
				// A job file, knobs or a matrix: see kdelta ab.
				return runJob(c, args, &s)
			}
			return runPlain(c, args, &s)
		},
	}
	s.register(c.Flags(), false)
	return c
}

// runPlain runs kdelta run without a job: the workloads named (or the
// quick suite) in one result set, shown when done.
func runPlain(c *cobra.Command, args []string, s *sessionFlags) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	specs, err := s.specs(args)
	if err != nil {
		return err
	}
	opt, err := sessionOptions(s.cpus, s.fifo, s.warmup, s.repeat, s.timeout, s.output, s.labels)
	if err != nil {
		return err
	}
	hook, warmHook, schedstat, err := s.cf.hooks(opt.CPUs, false)
	if err != nil {
		return err
	}
	opt.OnReady, opt.OnReadyWarmup = hook, warmHook
	if schedstat {
		restore, err := counter.EnableSchedstats("/")
		if err != nil {
			fmt.Fprintf(stderr, "kdelta: warning: %v: schedstat counters may stay zero\n", err)
		}
		defer restore()
	}
	if isTerminal(stderr) {
		opt.Progress = stderr
	}
	for _, w := range opt.Warnings {
		fmt.Fprintf(stderr, "kdelta: warning: %s\n", w)
	}
	rec, err := s.rf.open(c.Context())
	if err != nil {
		return err
	}
	defer rec.done(stderr)
	if rec != nil {
		opt.Record = rec.record
	}
	until, err := s.uf.rule(c.Context(), s.rf.loc, specs, opt.Repeat)
	if err != nil {
		return err
	}
	set, err := runner.RunUntil(c.Context(), specs, opt, until)
	s.uf.finish(stderr, set)
	if err == nil {
		// Profiled runs come after the measured ones and stay out of
		// their statistics.
		err = s.pf.record(c.Context(), set, specs, opt, s.output)
	}
	// Runs added after the first pass and profiles reach the store here.
	if rerr := rec.record(set); rerr != nil && err == nil {
		err = rerr
	}
	report.Show(stdout, set, report.ShowOptions{})
	s.pf.show(stdout, set)
	s.uf.report(stdout)
	if s.output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o FILE)")
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s", keptRuns(set), savedIn(s.output))}
	}
	return err
}

// specs are the workloads kdelta run names (and the quick suite), with
// the flags checked that need no machine.
func (s *sessionFlags) specs(args []string) ([]workload.Spec, error) {
	var specs []workload.Spec
	if s.quick {
		q, err := workload.QuickSuite()
		if err != nil {
			return nil, err
		}
		specs = append(specs, q...)
	}
	for _, a := range args {
		sp, err := workload.ParseSpec(a)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	if len(specs) == 0 {
		return nil, errors.New("run: no workloads given (name some, or use --quick; kdelta list shows them)")
	}
	if s.repeat < 1 {
		return nil, fmt.Errorf("-r/--repeat: must be at least 1, got %d", s.repeat)
	}
	if s.warmup < 0 {
		return nil, fmt.Errorf("--warmup: must not be negative, got %d", s.warmup)
	}
	if err := s.pf.check(s.fs); err != nil {
		return nil, err
	}
	return specs, nil
}

// keptRuns says what the sets keep of an interrupted session: measured
// runs and warm-ups apart, since a warm-up counts in no statistic and "1
// run kept" after one would promise a measurement that is not there.
func keptRuns(sets ...*result.Set) string {
	measured, warm := 0, 0
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				switch {
				case r.Measured():
					measured++
				case r.Warmup && r.Status == result.StatusOK:
					warm++
				}
			}
		}
	}
	return fmt.Sprintf("kept %s and %s", runsText(measured, "measured"), runsText(warm, "warm-up"))
}

// runsText is "1 KIND run" or "N KIND runs".
func runsText(n int, kind string) string {
	if n == 1 {
		return "1 " + kind + " run"
	}
	return fmt.Sprintf("%d %s runs", n, kind)
}

func savedIn(path string) string {
	if path == "" {
		return ""
	}
	return " in " + path
}
