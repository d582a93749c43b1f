package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
)

func newProfileCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "profile",
		Short: "Show, diff and export perf profiles (kdelta run --profile, perf report/script text, perf.data)",
		Long:  longHelp("profile"),
	}
	c.AddCommand(newProfileShowCmd(), newProfileDiffCmd(), newProfilePprofCmd())
	return c
}

func newProfileShowCmd() *cobra.Command {
	var (
		format, only string
		top          int
	)
	c := &cobra.Command{
		Use:   "show FILE",
		Short: "Top symbols of each profile: share, its range over profiles, samples and samples per operation",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := report.CheckFormat(format, report.ProfileFormats); err != nil {
				return err
			}
			gs, err := kprofile.Open(args[0], only, sourceIn(c.Context()))
			if err != nil {
				return err
			}
			return report.WriteProfiles(c.OutOrStdout(), gs, format, top)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(report.ProfileFormats, ", "))
	f.IntVar(&top, "top", 20, "symbols shown per profile; 0: all")
	f.StringVar(&only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	return c
}

func newProfileDiffCmd() *cobra.Command {
	var (
		format, only, by, output string
		top                      int
	)
	c := &cobra.Command{
		Use:   "diff A [B]",
		Short: "Symbols ordered by the change of their share from A to B, with samples and samples per operation",
		Long:  longHelp("profile-diff"),
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := report.CheckFormat(format, report.ProfileDiffFormats); err != nil {
				return err
			}
			diffs, err := kprofile.Diffs(args, only, by, sourceIn(c.Context()))
			if err != nil {
				return err
			}
			return report.ToFile(output, c.OutOrStdout(), func(w io.Writer) error {
				if format == report.HTMLFormat {
					return report.WriteProfileDiffHTML(w, diffs, top, report.HTMLOptions{})
				}
				return report.WriteProfileDiffs(w, diffs, format, top)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(report.ProfileDiffFormats, ", "))
	f.IntVar(&top, "top", 25, "symbols shown per diff; 0: all")
	f.StringVar(&only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	f.StringVar(&by, "by", "share", "order of the symbols: "+strings.Join(kprofile.Orders, ", "))
	f.StringVarP(&output, "output", "o", "", "write the diff to this file instead of stdout (--format html: one self-contained page)")
	return c
}

func newProfilePprofCmd() *cobra.Command {
	var output, only string
	c := &cobra.Command{
		Use:   "pprof FILE -o OUT",
		Short: "Export profiles to pprof format (call stacks when recorded with --profile-call-graph)",
		Long:  longHelp("profile-pprof"),
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if output == "" {
				return errors.New("profile pprof: -o/--output is required")
			}
			gs, err := kprofile.Open(args[0], only, sourceIn(c.Context()))
			if err != nil {
				return err
			}
			skipped, err := kprofile.WritePprofFile(output, args[0], gs)
			for _, s := range skipped {
				fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %v\n", s)
			}
			return err
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "", "the pprof file to write (gzipped protobuf)")
	c.Flags().StringVar(&only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	return c
}

// profileFlags are kdelta run's profiling flags.
type profileFlags struct {
	on, callGraph, systemWide bool
	runs, freq                int
	event                     string
}

func (p *profileFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&p.on, "profile", false, "after the measured runs, profile extra runs with perf record (kept out of statistics)")
	f.IntVar(&p.runs, "profile-runs", 1, "profiled runs per workload, with --profile")
	f.BoolVar(&p.callGraph, "profile-call-graph", false, "record call stacks (perf record -g), for pprof export")
	f.StringVar(&p.event, "profile-event", "cycles", "event to sample; perf falls back to cpu-clock without a PMU")
	f.BoolVar(&p.systemWide, "profile-system-wide", false, "sample every CPU (perf record -a), not only the run's tasks")
	f.IntVar(&p.freq, "profile-freq", 0, "sampling frequency in Hz (perf record -F); 0: perf's default")
}

// check validates the profiling flags before anything runs.
func (p *profileFlags) check(f *pflag.FlagSet) error {
	if !p.on {
		for _, n := range []string{"profile-runs", "profile-call-graph", "profile-event", "profile-system-wide", "profile-freq"} {
			if f.Changed(n) {
				return fmt.Errorf("--%s: needs --profile", n)
			}
		}
		return nil
	}
	if p.runs < 1 {
		return fmt.Errorf("--profile-runs: must be at least 1, got %d", p.runs)
	}
	if p.freq < 0 {
		return fmt.Errorf("--profile-freq: must not be negative, got %d", p.freq)
	}
	if strings.TrimSpace(p.event) == "" {
		return errors.New("--profile-event: empty event")
	}
	return nil
}

// writeProfileDiffs appends the profile diff of every benchmark profiled
// in both the baseline and each other file (compare --profile).
func writeProfileDiffs(ctx context.Context, w, errw io.Writer, files []string, format string) error {
	if format != "text" && format != "markdown" {
		fmt.Fprintf(errw, "kdelta: warning: --profile: profile diffs are appended to text and markdown output only (kdelta profile diff --format %s A B gives them alone)\n", format)
		return nil
	}
	fds, warnings := kprofile.DiffEach(files, sourceIn(ctx))
	for _, err := range warnings {
		fmt.Fprintf(errw, "kdelta: warning: --profile: %v\n", err)
	}
	return report.WriteFileDiffs(w, fds, format)
}
