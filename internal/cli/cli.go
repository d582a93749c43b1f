// Package cli wires kdelta's command line to its packages: it parses flags,
// calls the packages that do the work and prints what they return.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/vm"
)

// Version is kdelta's version, recorded in every result set.
var Version = "0.1.0-dev"

// Exit statuses (see DESIGN.md).
const (
	ExitOK          = 0
	ExitBad         = 1 // the thing asked about is bad (a regression with --fail-on)
	ExitUsage       = 2 // usage or input error
	ExitInterrupted = 130
)

// exitError carries an exit status other than ExitUsage through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs kdelta with args (without the program name) and returns the
// exit status. The hidden child and worker modes are dispatched here,
// before the command line is parsed. An error is printed as one line per
// problem (several when it joins them, errors.Join), each after
// "kdelta: ".
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if code, ok := runner.Hidden(args); ok {
		return code
	}
	// As a guest's /init (kdelta vm) the binary runs the job in the
	// initramfs. Measured children re-execute /init with ChildArg and are
	// dispatched above.
	if vm.IsGuest() {
		return vm.GuestMain()
	}
	// Knobs that a killed kdelta left changed go back first (kdelta
	// restore does it itself, and says so on stdout).
	if !isRestore(args) {
		knob.RecoverStale(stderr)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	for _, line := range problems(err) {
		fmt.Fprintf(stderr, "kdelta: %s\n", line)
	}
	return code
}

// problems is err as lines to print, one per problem: the errors that an
// errors.Join holds, each under the context wrapped around the join
// ("--alpha/--test: alpha 2 is not in (0, 1)"), and of any other error
// its first line, so that the output a failed tool printed, or a Go
// stack in it, never reaches the user.
func problems(err error) []string {
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		// errors.Join's message is its errors' on lines of their own; an
		// error wrapping several (fmt.Errorf with two %w) is one problem.
		var msgs []string
		for _, c := range e.Unwrap() {
			if c != nil {
				msgs = append(msgs, c.Error())
			}
		}
		if len(msgs) > 1 && err.Error() == strings.Join(msgs, "\n") {
			var out []string
			for _, c := range e.Unwrap() {
				if c != nil {
					out = append(out, problems(c)...)
				}
			}
			return out
		}
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			if prefix, ok := strings.CutSuffix(err.Error(), inner.Error()); ok {
				if sub := problems(inner); len(sub) > 1 {
					for i := range sub {
						sub[i] = prefix + sub[i]
					}
					return sub
				}
			}
		}
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return []string{msg}
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "kdelta",
		Short:         "Tell whether a kernel change made this machine faster or slower, and whether it is real",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       Version,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%s: %w", c.CommandPath(), err)
	})
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newListCmd(), newRunCmd(), newShowCmd(), newCompareCmd(), newEnvCmd(), newStatCmd(), newImportCmd(), newVMCmd(), newBisectRunCmd(), newProfileCmd(), newResultsCmd(), newHistoryCmd(), newABCmd(), newRestoreCmd())
	return root
}

// isTerminal tells whether f, a command's input or output, is a
// terminal: a file that answers the terminal ioctl, as isatty(3) asks.
// It is the one check for progress bars on stderr and for the question of
// results rm on stdin; /dev/null is a character device, not a terminal.
func isTerminal(f any) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	return ok && sys.IsTerminal(int(fd.Fd()))
}
