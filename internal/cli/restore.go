package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/report"
)

func newRestoreCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "restore",
		Short: "Put back kernel knobs that a killed kdelta left changed",
		Long:  longHelp("restore"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			// What was done is the command's output; what could not be
			// done is a warning (and exit 1).
			out, stderr := c.OutOrStdout(), c.ErrOrStderr()
			dir, err := knob.JournalDir()
			if err != nil {
				return err
			}
			done, holders, err := knob.Recover(dir)
			if err != nil {
				return err
			}
			failed, aside := report.WriteRestore(out, stderr, dir, done, holders)
			switch {
			case failed:
				return &exitError{code: ExitBad, err: errors.New("restore: some knobs could not be written back; their journals stay for another try")}
			case aside:
				return &exitError{code: ExitBad, err: errors.New("restore: some journals broke a rule for what kdelta reads back and were set aside, nothing in them done")}
			}
			return nil
		},
	}
}

// isRestore tells whether args run kdelta restore, which recovers what
// every other kdelta recovers at its start, and reports it as its output
// instead of on stderr. Before the command kdelta has only --help and
// --version, which take no value, so the command is the first word that
// is not a flag.
func isRestore(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a == "restore"
		}
	}
	return false
}
