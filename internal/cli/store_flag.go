package cli

import (
	"context"

	"github.com/spf13/cobra"
)

// storeFlagKey carries a reading command's --store in its context, where
// storeLocation finds it for every set the command resolves, however
// deep (a compare --profile's sources, the -o check).
type storeFlagKey struct{}

// withStore gives c, a command that reads sets (compare, show, explain),
// --store, as results and history have it (issue 35 point 9).
func withStore(c *cobra.Command) *cobra.Command {
	var loc string
	c.Flags().StringVar(&loc, "store", "", storeUsage)
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if loc != "" {
			cmd.SetContext(context.WithValue(cmd.Context(), storeFlagKey{}, loc))
		}
		return run(cmd, args)
	}
	return c
}
