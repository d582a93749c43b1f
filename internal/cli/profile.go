package cli

import (
	"context"
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
	c.AddCommand(newProfileShowCmd(), newProfileDiffCmd(), newProfilePprofCmd(), newProfileAnnotateCmd())
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
			gs, err := kprofile.Open(c.Context(), args[0], only, sourceIn(c.Context()))
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
			if err := checkOutput(c.Context(), output, "", args...); err != nil {
				return err
			}
			diffs, err := kprofile.Diffs(c.Context(), args, only, by, sourceIn(c.Context()))
			if err != nil {
				return err
			}
			err = report.ToFile(output, c.OutOrStdout(), func(w io.Writer) error {
				if format == report.HTMLFormat {
					return report.WriteProfileDiffHTML(w, diffs, top, report.HTMLOptions{})
				}
				return report.WriteProfileDiffs(w, diffs, format, top)
			})
			if err != nil {
				return err
			}
			return noProfile(diffs)
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
			if err := checkOutput(c.Context(), output, "", args[0]); err != nil {
				return err
			}
			skipped, err := kprofile.ExportPprof(c.Context(), args[0], only, output, sourceIn(c.Context()))
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

func newProfileAnnotateCmd() *cobra.Command {
	var o kprofile.AnnotateOptions
	var diff, top = "", 20
	c := &cobra.Command{
		Use:   "annotate REF SYMBOL",
		Short: "A symbol's instructions and source lines with their share of its samples (perf annotate); --diff lines up two",
		Long:  longHelp("profile-annotate"),
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			a, err := kprofile.Annotate(c.Context(), args[0], args[1], o, sourceIn(c.Context()))
			if err != nil {
				return err
			} else if diff == "" {
				return report.WriteAnnotation(c.OutOrStdout(), a)
			}
			b, err := kprofile.Annotate(c.Context(), diff, args[1], o, sourceIn(c.Context()))
			if err != nil {
				return err
			}
			return report.WriteAnnotationDiff(c.OutOrStdout(), a, b, kprofile.DiffAnnotations(a, b), top)
		},
	}
	c.Flags().StringVar(&diff, "diff", "", "line the annotation up with REF2's and rank the lines whose share changed")
	c.Flags().StringVar(&o.Vmlinux, "vmlinux", "", "the kernel image (or binary) to disassemble SYMBOL from where REF has no instruction text")
	c.Flags().StringVar(&o.Only, "workload", "", "only benchmarks whose name (workload:params) starts with this")
	c.Flags().IntVar(&top, "top", top, "lines shown by --diff; 0: all")
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
	return kprofile.CheckFlags(p.on, p.runs, p.freq, p.event, f.Changed)
}

// writeProfileDiffs appends the profile diff of every benchmark profiled
// in both the baseline and each other file (compare --profile).
func writeProfileDiffs(ctx context.Context, w, errw io.Writer, files []string, format string) error {
	fds, warnings := kprofile.DiffEach(ctx, files, sourceIn(ctx))
	return report.WriteCompareProfiles(w, errw, fds, warnings, format)
}
