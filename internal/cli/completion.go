package cli

import (
	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/workload"
)

// completeWorkloads completes a WORKLOAD[:k=v,...] argument for cobra's
// completion command (bash, zsh, fish, powershell): workload.Complete.
func completeWorkloads(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return workload.Complete(toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
