package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/calibrate"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/runner"
)

func newCalibrateCmd() *cobra.Command {
	var (
		sessions, repeat, fifo int
		cpus                   string
		from                   []string
		rf                     recordFlags
	)
	c := &cobra.Command{
		Use:   "calibrate WORKLOAD[:k=v,...]... [--sessions N] | calibrate --from REF...",
		Short: "Measure this host's session noise over back-to-back A/A sessions, for compare",
		Long:  longHelp("calibrate"),
		RunE: func(c *cobra.Command, args []string) error {
			if (len(args) == 0) == (len(from) == 0) {
				return errors.New("calibrate: name the workloads to run, or --from the sets measured already")
			}
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			o := calibrate.Options{Sessions: sessions, Progress: c.ErrOrStderr(),
				Warn: func(w string) { fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", w) }}
			if rec != nil {
				o.Store = rec.st
			}
			var res *calibrate.Result
			if len(from) > 0 {
				refs := newResolver(c.Context(), rf.loc)
				defer refs.Close()
				sets, lerr := refs.Sets(from)
				if lerr != nil {
					return lerr
				}
				res, err = calibrate.FromSets(c.Context(), sets, o)
			} else {
				setup := runner.Setup{CPUs: cpus, FIFO: fifo, Warmup: 1, Repeat: repeat, Command: commandLine(c.Context()), Version: Version}
				res, err = calibrate.RunWorkloads(c.Context(), args, setup, o)
			}
			if err == nil {
				report.WriteNoises(c.OutOrStdout(), res.Noises)
			}
			return err
		},
	}
	f := c.Flags()
	f.IntVar(&sessions, "sessions", calibrate.DefaultSessions, "back-to-back A/A sessions, each with one warm-up run")
	f.IntVarP(&repeat, "repeat", "r", 8, "measured runs per workload and session, as the comparisons will run")
	f.StringVar(&cpus, "cpus", "", "CPU list for every measured child, as taskset -c (as the comparisons will run)")
	f.IntVar(&fifo, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.StringArrayVar(&from, "from", nil, "estimate from result sets measured already, A/A sessions of one kernel and setup (repeatable; files, ids, k=v)")
	rf.register(f)
	return c
}
