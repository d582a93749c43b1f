package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/calibrate"
	"github.com/kdelta/kdelta/internal/report"
)

func newCalibrateCmd() *cobra.Command {
	var (
		sessions, repeat, fifo int
		cpus                   string
		rf                     recordFlags
	)
	c := &cobra.Command{
		Use:   "calibrate WORKLOAD[:k=v,...]... [--sessions N]",
		Short: "Measure this host's session noise over back-to-back A/A sessions, for compare",
		Long:  longHelp("calibrate"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			specs, err := calibrate.ParseWorkloads(args)
			if err != nil {
				return err
			}
			opt, err := sessionOptions(c.Context(), cpus, fifo, 1, repeat, 0, "", nil)
			if err != nil {
				return err
			}
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			o := calibrate.Options{Sessions: sessions, Runner: *opt, Progress: c.ErrOrStderr(),
				Warn: func(w string) { fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", w) }}
			if rec != nil {
				o.Store = rec.st
			}
			res, err := calibrate.Run(c.Context(), specs, o)
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
	rf.register(f)
	return c
}
