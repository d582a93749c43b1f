package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

func newHistoryCmd() *cobra.Command {
	var (
		by, workload, metric, format, loc, minChange string
		labels                                       []string
		alpha                                        float64
	)
	c := &cobra.Command{
		Use:   "history --by LABEL|time --workload W[:k=v,...] [--metric M]",
		Short: "The series of a metric across builds (a label's values) or time, with its change points",
		Long: `Print the series of one metric of one workload from the store: one row per
value of the label --by names (kernel builds, say), or per result set with
--by time. Every set that carries a value adds its measured runs to that
row. Rows by a label are in kernel-version order (6.15-rc6 < 6.15 <
6.15.1 < 6.16-rc1 < 6.16; distribution suffixes such as -eln150, .fc43 or
-200.fc43.x86_64 order after the version), which orders other names
naturally.

Each row: n (runs), median, and the change of the median from the row
before. Change points are found over the run-level values, not the
medians: E-divisive means with a Welch t-test (--alpha, default 0.01) and
a minimum relative change (--min-change, default 5%). A change point is
shown on the first row after the step, with the change of the mean from
the segment before it to the segment after it, its p-value, and whether
it is an improvement or a regression for this metric.

--workload takes parameters to pick one benchmark (pipe:mode=thread);
without them every parameter set of the workload gets a series of its own.
--metric defaults to the workload's first metric.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := report.CheckFormat(format, report.HistoryFormats); err != nil {
				return err
			}
			if by == "" {
				return fmt.Errorf("--by: name a label (such as kernel) or %q", history.ByTime)
			}
			mag, err := parsePercent(minChange)
			if err != nil {
				return fmt.Errorf("--min-change: %w", err)
			}
			opt := stats.ChangePointOptions{MinMagnitude: mag, Alpha: alpha}
			if err := opt.Validate(); err != nil {
				return fmt.Errorf("--alpha/--min-change: %w", err)
			}
			ls, err := parseLabelFlags(labels)
			if err != nil {
				return err
			}
			r := newResolver(c.Context(), loc)
			defer r.close()
			st, err := r.store()
			if err != nil {
				return err
			}
			if workload == "" {
				return fmt.Errorf("--workload: name one (%s)", storedWorkloads(c, st))
			}
			name, params, err := parseWorkloadRef(workload)
			if err != nil {
				return err
			}
			hs, err := history.Load(c.Context(), st, history.Query{
				By: by, Workload: name, Params: params, Metric: metric, Labels: ls, ChangePoints: opt,
			})
			if err != nil {
				return err
			}
			if len(hs) == 0 {
				if err := noSeries(c.Context(), st, by, name, workload, labels, ls); err != nil {
					return err
				}
				what := name
				if metric != "" {
					what += " " + metric
				}
				return fmt.Errorf("history: no measured runs of %s in %s (stored workloads: %s)", what, st.Location(), storedWorkloads(c, st))
			}
			for _, h := range hs {
				if h.Unlabelled > 0 && by != history.ByTime {
					fmt.Fprintf(c.ErrOrStderr(), "kdelta: %s: %d result sets without label %s left out\n", h.Key(), h.Unlabelled, by)
				}
			}
			return report.WriteHistory(c.OutOrStdout(), hs, opt, format)
		},
	}
	f := c.Flags()
	f.StringVar(&by, "by", "", "the label whose values make the series (kernel), or time")
	f.StringVar(&workload, "workload", "", "the workload, with parameters to pick one benchmark: pipe:mode=thread")
	f.StringVar(&metric, "metric", "", "the metric (default: the workload's first)")
	f.StringArrayVar(&labels, "label", nil, "only sets with this label, k=v (repeatable)")
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(report.HistoryFormats, ", "))
	f.StringVar(&minChange, "min-change", "5%", "the smallest change reported as a change point")
	f.Float64Var(&alpha, "alpha", 0.01, "significance level of a change point")
	f.StringVar(&loc, "store", "", storeUsage)
	return c
}

// parseWorkloadRef reads W or W:k=v,k=v.
func parseWorkloadRef(s string) (string, map[string]string, error) {
	name, rest, _ := strings.Cut(s, ":")
	if name == "" {
		return "", nil, fmt.Errorf("--workload: %q names no workload", s)
	}
	if rest == "" {
		return name, nil, nil
	}
	params := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", nil, fmt.Errorf("--workload: %q in %q is not key=value", kv, s)
		}
		params[k] = v
	}
	return name, params, nil
}

// noSeries says why a history came out empty when the labels are the
// reason: no set carries the --label query, or none of the workload's
// sets carries the --by label (a typo, say). It returns nil otherwise.
func noSeries(ctx context.Context, st store.Store, by, name, ref string, flags []string, ls []store.Label) error {
	if len(ls) > 0 {
		infos, err := st.List(ctx, store.Filter{Labels: ls})
		if err != nil {
			return err
		}
		if len(infos) == 0 {
			return fmt.Errorf("history: --label %s", noneCarries(ctx, st, strings.Join(flags, ","), ls))
		}
	}
	if by == history.ByTime {
		return nil
	}
	infos, err := st.List(ctx, store.Filter{Workload: name, Labels: ls})
	if err != nil || len(infos) == 0 {
		return err
	}
	for _, in := range infos {
		if _, ok := in.Labels[by]; ok {
			return nil
		}
	}
	return fmt.Errorf("history: --by %s: no result set of %s in %s carries the label %s (%s)", by, ref, st.Location(), by, storedLabels(infos))
}

// storedWorkloads lists the workloads the store has sets of.
func storedWorkloads(c *cobra.Command, st store.Store) string {
	infos, err := st.List(c.Context(), store.Filter{})
	if err != nil {
		return err.Error()
	}
	seen := map[string]bool{}
	var ws []string
	for _, in := range infos {
		for _, w := range in.Workload {
			if !seen[w] {
				seen[w] = true
				ws = append(ws, w)
			}
		}
	}
	if len(ws) == 0 {
		return "none yet"
	}
	return strings.Join(ws, ", ")
}
