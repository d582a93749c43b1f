package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
)

func newStatCmd() *cobra.Command {
	var (
		repeat, fifo int
		cpus, output string
		timeout      time.Duration
		labels       []string
		cf           counterFlags
		rf           recordFlags
	)
	c := &cobra.Command{
		Use:   "stat [flags] -- CMD [ARGS...]",
		Short: "Run a command N times with counters, as perf stat --repeat",
		Long:  longHelp("stat"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if repeat < 1 {
				return fmt.Errorf("-r/--repeat: must be at least 1, got %d", repeat)
			}
			if err := checkOutput(c.Context(), output, rf.loc); err != nil {
				return err
			}
			opt, err := sessionOptions(c.Context(), cpus, fifo, 0, repeat, timeout, output, labels)
			if err != nil {
				return err
			}
			opt.CommandOutput = os.Stderr
			// stat has no warm-up runs: every run counts -e, as perf stat.
			hook, _, schedstat, err := cf.Hooks(opt.CPUs, true, opt.Env)
			if err != nil {
				return err
			}
			opt.OnReady, opt.Conditions = hook, cf.Conditions(false)
			defer counter.SessionSchedstats(schedstat, "/", func(err error) { fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %v\n", err) })()
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			if rec != nil {
				opt.Record = rec.record
			}
			set, err := runner.Run(c.Context(), []workload.Spec{runner.CommandSpec(args)}, opt)
			report.PerfStat(c.OutOrStdout(), set)
			if errors.Is(err, runner.ErrInterrupted) {
				return interrupted([]*result.Set{set}, output, nil, nil)
			}
			if err != nil {
				return err
			}
			for _, r := range set.Benchmarks[0].Runs {
				if r.Status != "ok" {
					return &exitError{code: ExitBad, err: fmt.Errorf("run %d: %s", r.Index+1, r.Reason)}
				}
			}
			return nil
		},
	}
	f := c.Flags()
	f.SetInterspersed(false)
	f.IntVarP(&repeat, "repeat", "r", 1, "runs of the command")
	f.StringVar(&cpus, "cpus", "", "CPU list for the command, as taskset -c")
	f.IntVar(&fifo, "fifo", 0, "run the command under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&timeout, "timeout", 0, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&labels, "label", nil, "label the result set, k=v (repeatable)")
	f.StringVarP(&output, "output", "o", "", "write the runs as a result set to this JSON file")
	cf.register(f, "none")
	rf.register(f)
	return c
}
