// Package cli wires kdelta's command line to its packages: it parses flags,
// calls the packages that do the work and prints what they return.
package cli

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/guest"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/outfile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
)

// helpFiles hold each command's long help, help/COMMAND.txt (a
// subcommand's name joined to its parent's with "-"): prose kept as prose,
// out of the code that wires the command.
//
//go:embed help/*.txt
var helpFiles embed.FS

// longHelp is the long help of the named command. A name without a file
// is kdelta's bug: it panics when the command tree is built, which every
// test of the command line does.
func longHelp(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("kdelta: no help text for " + name + ": " + err.Error())
	}
	return strings.TrimSuffix(string(b), "\n")
}

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

// Main runs kdelta with args (without the program name) as a process:
// with its environment, on the system it was built for. It returns the
// exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Run(ctx, Process{Args: args, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, GOOS: runtime.GOOS})
}

// A Process is what kdelta takes from the process it runs in. Main takes
// the real one; a test runs kdelta with its own.
type Process struct {
	// Args are the arguments, without the program name.
	Args []string
	// Stdout takes the output, Stderr progress, warnings and errors.
	Stdout, Stderr io.Writer
	// Getenv reads the environment ($KDELTA_STORE); nil reads an empty
	// one.
	Getenv func(string) string
	// GOOS is the system kdelta runs on: the commands that measure this
	// machine refuse any but linux.
	GOOS string
}

// processKey carries the Process in the command's context, which is how
// the resolver, made deep in a command, reads the environment Run was
// given.
type processKey struct{}

// getenv reads the environment of the Process in ctx. Without one (a
// context that did not come from Run) it reads the real environment.
func getenv(ctx context.Context, key string) string {
	p, ok := ctx.Value(processKey{}).(*Process)
	switch {
	case !ok:
		return os.Getenv(key)
	case p.Getenv == nil:
		return ""
	}
	return p.Getenv(key)
}

// commandLine is the command line of the Process in ctx as a result set
// records it, "kdelta" and the arguments (os.Args without one).
func commandLine(ctx context.Context) []string {
	args := os.Args[1:]
	if p, ok := ctx.Value(processKey{}).(*Process); ok {
		args = p.Args
	}
	return append([]string{"kdelta"}, args...)
}

// Run runs kdelta in p and returns the exit status. The hidden child and
// worker modes are dispatched here, before the command line is parsed. An
// error is printed as one line per problem (several when it joins them,
// errors.Join), each after "kdelta: ".
func Run(ctx context.Context, p Process) (code int) {
	args, stderr := p.Args, p.Stderr
	defer lastResort(stderr, &code)
	if code, ok := runner.Hidden(args); ok {
		return code
	}
	// As a guest's /init (kdelta vm) the binary runs the job in the
	// initramfs, as cmd/kdelta-guest does. Measured children re-execute
	// /init with ChildArg and are dispatched above.
	if guest.IsGuest() {
		return guest.Main()
	}
	// Knobs that a killed kdelta left changed go back first (kdelta
	// restore does it itself, and says so on stdout). Knobs are Linux's.
	if p.GOOS == "linux" && !isRestore(args) {
		knob.RecoverStale(stderr)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = context.WithValue(ctx, processKey{}, &p)
	out := &outfile.Watched{W: p.Stdout}
	root := newRoot(out, stderr)
	needLinux(root, p.GOOS)
	root.SetArgs(kernelsAB(args))
	err := root.ExecuteContext(ctx)
	if err == nil {
		// Output that did not reach stdout is output lost (issue 35
		// point 10): the command's own errors come first.
		err = out.Failed()
	}
	if err == nil {
		return ExitOK
	}
	code = ExitUsage
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// A read given up on SIGINT or SIGTERM (result.ReadInput).
		code = ExitInterrupted
	}
	for _, line := range report.Problems(err) {
		fmt.Fprintf(stderr, "kdelta: %s\n", line)
	}
	return code
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
	// cobra's kdelta completion bash|zsh|fish|powershell stays: run and ab
	// complete workloads and their parameters (completeWorkloads).
	root.AddCommand(newListCmd(), newRunCmd(), newShowCmd(), newCompareCmd(), newEnvCmd(), newStatCmd(), newImportCmd(), newVMCmd(), newSeriesCmd(), newBisectRunCmd(), newProfileCmd(), newResultsCmd(), newHistoryCmd(), newABCmd(), newRestoreCmd(), newCalibrateCmd(), newExplainCmd(), newServeCmd(), newSubmitCmd(), newAgentCmd(), newJobsCmd(), newAgentsCmd(), newLabCmd(), newReproduceCmd())
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

// A linuxOnly command measures or changes the machine it runs on, which
// kdelta does only on Linux; why says what it does there, when (nil:
// always) tells from the arguments whether this invocation does.
type linuxOnly struct {
	why  string
	when func(args []string) bool
}

// linuxOnlyCommands are the commands that measure: elsewhere kdelta reads
// the result sets made on Linux. It is the one list, checked by needLinux
// before each command's own RunE.
var linuxOnlyCommands = map[string]linuxOnly{
	"kdelta run":        {why: "measures this machine's kernel"},
	"kdelta stat":       {why: "measures a command on this machine's kernel"},
	"kdelta ab":         {why: "changes and measures this machine's kernel settings"},
	"kdelta vm":         {why: "boots a kernel under test in qemu with kdelta as its /init"},
	"kdelta series":     {why: "boots kernel builds in qemu with kdelta as their /init"},
	"kdelta bisect-run": {why: "measures this machine's kernel to judge it"},
	"kdelta restore":    {why: "writes back the kernel settings a killed kdelta left changed"},
	"kdelta calibrate":  {why: "measures this machine's session noise"},
	"kdelta env":        {why: "reads this machine's kernel fingerprint"},
	"kdelta agent":      {why: "runs the lab's jobs, which measure this machine"},
	"kdelta env diff": {why: "reads this machine's kernel fingerprint for -",
		when: func(args []string) bool { return slices.Contains(args, "-") }},
}

// needLinux makes each command of linuxOnlyCommands under root fail on
// any goos but linux, before it starts, with one line saying why and what
// does work there. Flags and arguments are checked first, and help works.
func needLinux(root *cobra.Command, goos string) {
	if goos == "linux" {
		return
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if lo, ok := linuxOnlyCommands[c.CommandPath()]; ok && c.RunE != nil {
			run := c.RunE
			c.RunE = func(c *cobra.Command, args []string) error {
				if lo.when == nil || lo.when(args) {
					return fmt.Errorf("%s %w: it %s (this is %s, where compare, import, show, history, results and profile read the results measured on Linux)",
						c.CommandPath(), sys.ErrNotLinux, lo.why, goos)
				}
				return run(c, args)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
