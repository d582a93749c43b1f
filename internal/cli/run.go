package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

func newRunCmd() *cobra.Command {
	var (
		repeat, warmup, fifo int
		cpus, output         string
		timeout              time.Duration
		labels               []string
		quick                bool
		cf                   counterFlags
		uf                   untilFlags
		pf                   profileFlags
		rf                   recordFlags
		jf                   jobFlags
	)
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
			if jf.used() {
				// A job file, knobs or a matrix: see kdelta ab.
				return runJob(c, args, &jf, "run")
			}
			var specs []workload.Spec
			if quick {
				q, err := workload.QuickSuite()
				if err != nil {
					return err
				}
				specs = append(specs, q...)
				if !c.Flags().Changed("repeat") {
					repeat = 5
				}
			}
			for _, a := range args {
				sp, err := workload.ParseSpec(a)
				if err != nil {
					return err
				}
				specs = append(specs, sp)
			}
			if len(specs) == 0 {
				return errors.New("run: no workloads given (name some, or use --quick; kdelta list shows them)")
			}
			if repeat < 1 {
				return fmt.Errorf("-r/--repeat: must be at least 1, got %d", repeat)
			}
			if warmup < 0 {
				return fmt.Errorf("--warmup: must not be negative, got %d", warmup)
			}
			if err := pf.check(c.Flags()); err != nil {
				return err
			}
			opt, err := sessionOptions(cpus, fifo, warmup, repeat, timeout, output, labels)
			if err != nil {
				return err
			}
			hook, warmHook, schedstat, err := cf.hooks(opt.CPUs, false)
			if err != nil {
				return err
			}
			opt.OnReady, opt.OnReadyWarmup = hook, warmHook
			if schedstat {
				restore, err := counter.EnableSchedstats("/")
				if err != nil {
					fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %v: schedstat counters may stay zero\n", err)
				}
				defer restore()
			}
			if isTerminal(c.ErrOrStderr()) {
				opt.Progress = c.ErrOrStderr()
			}
			for _, w := range opt.Warnings {
				fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", w)
			}
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			if rec != nil {
				opt.Record = rec.record
			}
			set, err := uf.run(c, specs, opt)
			if set == nil {
				return err
			}
			if err == nil {
				// Profiled runs come after the measured ones and stay
				// out of their statistics.
				err = pf.record(c.Context(), set, specs, opt, output)
			}
			// Runs added after the first pass and profiles reach the
			// store here.
			if rerr := rec.record(set); rerr != nil && err == nil {
				err = rerr
			}
			report.Show(c.OutOrStdout(), set, report.ShowOptions{})
			pf.show(c.OutOrStdout(), set)
			uf.report(c.OutOrStdout())
			if output == "" && rec == nil {
				fmt.Fprintln(c.ErrOrStderr(), "kdelta: results not saved (use -o FILE)")
			}
			if errors.Is(err, runner.ErrInterrupted) {
				return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s", keptRuns(set), savedIn(output))}
			}
			return err
		},
	}
	f := c.Flags()
	f.IntVarP(&repeat, "repeat", "r", 5, "measured runs per workload")
	f.IntVar(&warmup, "warmup", 1, "warm-up runs per workload (recorded, not counted; syscall and pipe warm up on at most 1M calls or 100k loops)")
	f.StringVar(&cpus, "cpus", "", "CPU list for every measured child, as taskset -c (e.g. 1 or 0-3,8)")
	f.IntVar(&fifo, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&labels, "label", nil, "label the result set, k=v (repeatable; host and kernel are set unless given)")
	f.StringVarP(&output, "output", "o", "", "write the result set to this JSON file, after every run")
	f.BoolVar(&quick, "quick", false, "run the quick suite of every seed workload")
	cf.register(f, "all")
	uf.register(f)
	pf.register(f)
	rf.register(f)
	jf.register(f, false)
	return c
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
