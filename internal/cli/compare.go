package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

func newCompareCmd() *cobra.Command {
	var (
		format, threshold, test, failOn string
		alpha                           float64
		and                             []string
		withProfile                     bool
	)
	c := &cobra.Command{
		Use:   "compare A B [C...]",
		Short: "Compare result sets: change, confidence interval, p-value and verdict per metric",
		Long: `Compare result sets; the first is the baseline. A file may be a kdelta result
set or anything kdelta import reads (perf stat, perf bench, stress-ng,
hackbench, Go benchmark format, a pasted Markdown table).

For every workload and metric present in all sets: n, mean ± stddev, median,
min, max; the relative change of the centre (Hodges-Lehmann on log values for
the default Mann-Whitney U test, the ratio of means for --test welch), its
95% confidence interval and p-value, and a verdict:

  improved / regressed  p < alpha and the whole interval beyond ±threshold
  ~                     the whole interval inside ±threshold
  inconclusive (need ≈N runs)  anything else, with the runs that would settle it

Summaries (perf stat -r gives only mean ± standard error and n) are compared
with Welch's t from the summary statistics. Exit status 1 with
--fail-on regression when any verdict is regressed.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			thr, err := parsePercent(threshold)
			if err != nil {
				return fmt.Errorf("--threshold: %w", err)
			}
			opt := compare.Options{Stats: stats.Options{Alpha: alpha, Threshold: thr, Test: test}}
			if err := opt.Stats.Validate(); err != nil {
				return fmt.Errorf("--alpha/--test: %w", err)
			}
			if failOn != "" && failOn != "regression" {
				return fmt.Errorf("--fail-on: unknown value %q (regression)", failOn)
			}
			if err := report.CheckFormat(format, report.CompareFormats); err != nil {
				return err
			}
			first, err := compareFiles(args, opt)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			if len(and) > 0 {
				if len(args) != 2 || len(and) != 2 {
					return errors.New("--and: compares one change with another: kdelta compare A B --and C D")
				}
				second, err := compareFiles(and, opt)
				if err != nil {
					return err
				}
				report.WriteChanges(out, first.Names, second.Names, compare.Changes(first, second, opt.Stats.Alpha))
			} else if err := report.WriteCompare(out, first, format); err != nil {
				return err
			}
			if withProfile {
				if err := writeProfileDiffs(out, c.ErrOrStderr(), args, format); err != nil {
					return err
				}
			}
			if failOn == "regression" {
				for _, row := range first.Rows {
					for _, v := range row.Vs {
						if v.Verdict == stats.Regressed {
							return &exitError{code: ExitBad, err: fmt.Errorf("regression: %s %s", row.Workload, row.Metric.Name)}
						}
					}
				}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(report.CompareFormats, ", "))
	f.Float64Var(&alpha, "alpha", 0.05, "significance level")
	f.StringVar(&threshold, "threshold", "1%", "noise band: changes inside ±threshold do not matter (percent)")
	f.StringVar(&test, "test", stats.TestMannWhitney, "mannwhitney or welch")
	f.StringVar(&failOn, "fail-on", "", "exit 1 when a verdict is regressed (regression)")
	f.StringSliceVar(&and, "and", nil, "compare the change A->B with the change C->D: --and C,D")
	f.BoolVar(&withProfile, "profile", false, "append the profile diff of each workload profiled in both (text and markdown)")
	return c
}

func compareFiles(files []string, opt compare.Options) (*compare.Result, error) {
	var sets []*result.Set
	for _, f := range files {
		s, err := loadAny(f)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	names := compare.Names(sets, files)
	ins := make([]compare.Input, len(sets))
	for i := range sets {
		ins[i] = compare.Input{Name: names[i], Set: sets[i]}
	}
	return compare.Compare(ins, opt)
}

// loadAny reads a kdelta result set or, failing that, imports the file;
// a reference that is not a file names a set in the store (an id, the
// start of one, or a label query such as kernel=6.16): see resolver.
func loadAny(path string) (*result.Set, error) {
	r := newResolver(context.Background(), "")
	defer r.close()
	return r.set(path)
}

// parsePercent reads "1%", "1" (percent) or "0.5%" as a fraction.
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v <= 0 || v >= 1000 {
		return 0, fmt.Errorf("bad value %q (a positive percentage such as 1%%)", s)
	}
	return v / 100, nil
}
