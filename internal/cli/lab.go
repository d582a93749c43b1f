package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/lab"
)

func newLabCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "lab",
		Short: "The lab's PostgreSQL database: init",
		Long:  longHelp("lab"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return c.Help()
		},
	}
	var loc string
	init := &cobra.Command{
		Use:   "init --store postgres://...",
		Short: "Create River's, the store's and the lab's tables and the agent, submitter and reader roles",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			r, err := lab.Init(c.Context(), storeLocation(c.Context(), loc))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "agents:     %s\nsubmitters: %s\nreaders:    %s\n", r.Agent, r.Submitter, r.Reader)
			return nil
		},
	}
	init.Flags().StringVar(&loc, "store", "", storeUsage)
	c.AddCommand(init)
	return c
}
