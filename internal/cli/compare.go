package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/resolve"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

func newCompareCmd() *cobra.Command {
	var (
		cf          compareFlags
		and         []string
		withProfile bool
		output      string
		plot        bool
	)
	c := &cobra.Command{
		Use:   "compare [A B [C...]]",
		Short: "Compare result sets: change, confidence interval, p-value and verdict per metric; none named: the newest with the previous boot's",
		Long:  longHelp("compare"),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				return fmt.Errorf("compare: one set named (%s): name two or more, or none to compare the newest stored set with the previous boot's", args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(c.Context(), output, "", append(args, and...)...); err != nil {
				return err
			}
			so, err := cf.options()
			if err != nil {
				return err
			}
			if len(and) > 0 && (len(args) != 2 || len(and) != 2) {
				return errors.New("--and: compares one change with another: kdelta compare A B --and C D")
			}
			// The resolver loads the sets and finds the host's session noise.
			refs := newResolver(c.Context(), "")
			defer refs.Close()
			given, err := cf.noise.value()
			if err != nil {
				return err
			}
			opt := compare.Options{Stats: so, Noise: refs.Noise, Metrics: cf.metrics, SessionNoise: given}
			if len(args) == 0 && (len(and) > 0 || withProfile) {
				return errors.New("compare: --and and --profile need the sets named")
			}
			first, second, err := compareSides(refs, opt, args, and, c.ErrOrStderr())
			if err != nil {
				return err
			}
			err = report.ToFile(output, c.OutOrStdout(), func(out io.Writer) error {
				if second != nil {
					report.WriteChanges(out, first.Names, second.Names, compare.Changes(first, second, so.Alpha))
				} else if err := report.WriteCompare(out, first, cf.format); err != nil {
					return err
				}
				if plot {
					report.WriteComparePlots(out, first)
				}
				if withProfile {
					return writeProfileDiffs(c.Context(), out, c.ErrOrStderr(), args, cf.format)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if err := compare.FailOn(cf.failOn, first.Regressed(false)); err != nil {
				return &exitError{code: ExitBad, err: err}
			}
			return failUnmeasured(cf.failOn, first)
		},
	}
	f := c.Flags()
	cf.register(f, "output format")
	cf.noise.register(f)
	f.StringSliceVar(&and, "and", nil, "compare the change A->B with the change C->D: --and C,D")
	f.StringVar(&cf.metrics, "metrics", "", "metrics judged: primary (the workload's), all (and the runs' counters and rusage, per operation), or a list; default primary, all for stat sets")
	f.BoolVar(&withProfile, "profile", false, "append the profile diff of each workload profiled in both (text and markdown)")
	f.BoolVar(&plot, "plot", false, "append a text strip plot of each metric's runs, a line per set")
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout (--format html: one self-contained page)")
	return withStore(c)
}

// compareSides is the comparison of the sets named (none: the newest
// with the previous boot's) and, with --and, the second one.
func compareSides(refs *resolve.Resolver, opt compare.Options, args, and []string, stderr io.Writer) (first, second *compare.Result, err error) {
	if len(args) == 0 {
		first, err = previousBoot(refs, opt, stderr)
	} else {
		first, err = compare.Files(args, refs.Side, opt)
	}
	if err != nil || len(and) == 0 {
		return first, nil, err
	}
	second, err = compare.Files(and, refs.Side, opt)
	return first, second, err
}

// previousBoot compares the newest stored set with the previous boot's
// (resolve.PreviousBoot), saying on stderr which two it took and why.
func previousBoot(refs *resolve.Resolver, opt compare.Options, stderr io.Writer) (*compare.Result, error) {
	p, err := refs.PreviousBoot()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "kdelta: %s\n", p.Why)
	sets := []*result.Set{p.Base, p.New}
	names := compare.Names(sets, []string{p.Base.ID, p.New.ID})
	return compare.Compare([]compare.Input{{Name: names[0], Set: p.Base}, {Name: names[1], Set: p.New}}, opt)
}

// compareFlags are the comparison flags of kdelta compare and kdelta ab.
type compareFlags struct {
	format, threshold, test, failOn, metrics string
	alpha                                    float64
	noise                                    sessionNoiseFlag // compare and explain only
}

// register adds the flags; what names the output --format chooses.
func (f *compareFlags) register(fs *pflag.FlagSet, what string) {
	fs.StringVar(&f.format, "format", "text", what+": "+strings.Join(report.CompareFormats, ", "))
	fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level")
	fs.StringVar(&f.threshold, "threshold", "1%", "noise band: changes inside ±threshold do not matter (percent)")
	fs.StringVar(&f.test, "test", stats.TestMannWhitney, "mannwhitney or welch")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 1 when a verdict is regressed (regression)")
}

// options checks the flags and returns the comparison's options.
func (f *compareFlags) options() (stats.Options, error) {
	if err := report.CheckFormat(f.format, report.CompareFormats); err != nil {
		return stats.Options{}, err
	}
	thr, err := stats.ParsePercent(f.threshold)
	if err != nil {
		return stats.Options{}, fmt.Errorf("--threshold: %w", err)
	}
	// Every bad flag is said, each by its own name: --alpha 0 too, which
	// the options would take as their default.
	alphaErr := stats.CheckAlpha(f.alpha)
	so := stats.Options{Alpha: f.alpha, Threshold: thr, Test: f.test}
	checked := so
	checked.Alpha = 0
	if err := checked.Validate(); err != nil {
		return stats.Options{}, errors.Join(alphaErr, fmt.Errorf("--test: %w", err))
	}
	if alphaErr != nil {
		return stats.Options{}, alphaErr
	}
	return so, compare.CheckFailOn(f.failOn)
}

// sourceIn is loadAny in ctx, as the profile package takes a source.
func sourceIn(ctx context.Context) func(string) (*result.Set, error) {
	return func(path string) (*result.Set, error) { return loadAny(ctx, path) }
}

// loadAny reads a kdelta result set or, failing that, imports the file;
// a reference that is not a file names a set in the store (an id, the
// start of one, or a label query such as kernel=6.16): see resolver.
func loadAny(ctx context.Context, path string) (*result.Set, error) {
	r := newResolver(ctx, "")
	defer r.Close()
	return r.Set(path)
}
