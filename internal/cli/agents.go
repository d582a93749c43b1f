package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/lab"
	"github.com/kdelta/kdelta/internal/report"
)

func newAgentsCmd() *cobra.Command {
	var loc string
	c := &cobra.Command{
		Use:   "agents",
		Short: "The lab's agents: ls",
		Long:  longHelp("agents"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return c.Help()
		},
	}
	c.PersistentFlags().StringVar(&loc, "store", "", storeUsage)
	c.AddCommand(&cobra.Command{
		Use:   "ls",
		Short: "List the agents' heartbeats: state, last seen, kernel, boot id, load, job, labels",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			agents, err := lab.ListAgents(c.Context(), storeLocation(c.Context(), loc))
			if err != nil {
				return err
			}
			report.WriteAgents(c.OutOrStdout(), agents, time.Now())
			return nil
		},
	})
	return c
}
