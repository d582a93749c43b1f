package cli

import (
	"github.com/spf13/cobra"
)

func newRunCmd() *cobra.Command {
	var s sessionFlags
	c := &cobra.Command{
		Use:   "run [WORKLOAD[:k=v,...]]...",
		Short: "Run workloads, each run in a child process of its own",
		Long:  longHelp("run"),
		RunE: func(c *cobra.Command, args []string) error {
			// A session of one cell without knobs, unless a job file,
			// knobs or a matrix make it one of kdelta ab's.
			return runJob(c, args, &s)
		},
	}
	c.ValidArgsFunction = completeWorkloads
	s.register(c.Flags(), false)
	return c
}
