package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/resolve"
	"github.com/kdelta/kdelta/internal/stats"
)

// historyFlags are kdelta history's flags.
type historyFlags struct {
	by, workload, metric, format, loc, minChange, output string
	labels                                               []string
	alpha                                                float64
}

func newHistoryCmd() *cobra.Command {
	var h historyFlags
	c := &cobra.Command{
		Use:   "history --by LABEL|time --workload W[:k=v,...] [--metric M]",
		Short: "The series of a metric across builds (a label's values) or time, with its change points",
		Long:  longHelp("history"),
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, args []string) error { return h.run(c) },
	}
	f := c.Flags()
	f.StringVar(&h.by, "by", "", "the label whose values make the series (kernel), or time")
	f.StringVar(&h.workload, "workload", "", "the workload, with parameters to pick one benchmark: pipe:mode=thread")
	f.StringVar(&h.metric, "metric", "", "the metric (default: the workload's first)")
	f.StringArrayVar(&h.labels, "label", nil, "only sets with this label, k=v (repeatable)")
	f.StringVar(&h.format, "format", "text", "output format: "+strings.Join(report.HistoryFormats, ", "))
	f.StringVar(&h.minChange, "min-change", "5%", "the smallest change reported as a change point")
	f.Float64Var(&h.alpha, "alpha", 0.01, "significance level of a change point")
	f.StringVar(&h.loc, "store", "", storeUsage)
	f.StringVarP(&h.output, "output", "o", "", "write the report to this file instead of stdout (--format html: one self-contained page)")
	return c
}

// query checks the flags that need no store and returns the query, with
// the workload left for run to check against what the store holds.
func (h *historyFlags) query() (history.Query, error) {
	if err := report.CheckFormat(h.format, report.HistoryFormats); err != nil {
		return history.Query{}, err
	}
	if h.by == "" {
		return history.Query{}, fmt.Errorf("--by: name a label (such as kernel) or %q", history.ByTime)
	}
	mag, err := stats.ParsePercent(h.minChange)
	if err != nil {
		return history.Query{}, fmt.Errorf("--min-change: %w", err)
	}
	opt := stats.ChangePointOptions{MinMagnitude: mag, Alpha: h.alpha}
	if err := opt.Validate(); err != nil {
		return history.Query{}, fmt.Errorf("--alpha/--min-change: %w", err)
	}
	ls, err := resolve.ParseLabelFlags(h.labels)
	if err != nil {
		return history.Query{}, err
	}
	return history.Query{By: h.by, Metric: h.metric, Labels: ls, ChangePoints: opt}, nil
}

// run loads the series from the store and renders them.
func (h *historyFlags) run(c *cobra.Command) error {
	q, err := h.query()
	if err != nil {
		return err
	}
	ctx := c.Context()
	if err := checkOutput(ctx, h.output, h.loc); err != nil {
		return err
	}
	r := newResolver(ctx, h.loc)
	defer r.Close()
	st, err := r.Store()
	if err != nil {
		return err
	}
	if h.workload == "" {
		return fmt.Errorf("--workload: name one (%s)", resolve.StoredWorkloads(ctx, st))
	}
	if q.Workload, q.Params, err = history.ParseWorkloadRef(h.workload); err != nil {
		return err
	}
	hs, err := history.Load(ctx, st, q)
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		return resolve.NoSeries(ctx, st, q, h.workload, h.labels)
	}
	for _, s := range hs {
		if s.Unlabelled > 0 && h.by != history.ByTime {
			fmt.Fprintf(c.ErrOrStderr(), "kdelta: %s: %d result sets without label %s left out\n", s.Key(), s.Unlabelled, h.by)
		}
	}
	return report.ToFile(h.output, c.OutOrStdout(), func(w io.Writer) error { return report.WriteHistory(w, hs, q.ChangePoints, h.format) })
}
