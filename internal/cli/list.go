package cli

import (
	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/workload"
)

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workloads, their parameters, defaults and metrics",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			report.WriteWorkloads(c.OutOrStdout(), workload.All())
			return nil
		},
	}
}
