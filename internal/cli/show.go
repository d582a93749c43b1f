package cli

import (
	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
)

func newShowCmd() *cobra.Command {
	var runs bool
	c := &cobra.Command{
		Use:   "show FILE|ID|k=v",
		Short: "Summarise a result set: per metric n, mean ± stddev (CV), median, min, max",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			r := newResolver(c.Context(), "")
			defer r.Close()
			set, err := r.Saved(args[0])
			if err != nil {
				return err
			}
			report.Show(c.OutOrStdout(), set, report.ShowOptions{Runs: runs})
			ns, err := r.Noises(set, "")
			report.WriteNoises(c.OutOrStdout(), ns)
			return err
		},
	}
	c.Flags().BoolVar(&runs, "runs", false, "also print every run")
	return c
}
