package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// historyFormats are the output formats of kdelta history.
var historyFormats = []string{"text", "markdown", "csv", "json"}

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
			known := false
			for _, f := range historyFormats {
				known = known || f == format
			}
			if !known {
				return fmt.Errorf("--format: unknown format %q (one of %s)", format, strings.Join(historyFormats, ", "))
			}
			if by == "" {
				return fmt.Errorf("--by: name a label (such as kernel) or %q", store.ByTime)
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
			hs, err := store.History(c.Context(), st, store.HistoryQuery{
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
				if h.Unlabelled > 0 && by != store.ByTime {
					fmt.Fprintf(c.ErrOrStderr(), "kdelta: %s: %d result sets without label %s left out\n", h.Key(), h.Unlabelled, by)
				}
			}
			out := c.OutOrStdout()
			switch format {
			case "markdown":
				historyMarkdown(out, hs, opt)
			case "csv":
				return historyCSV(out, hs)
			case "json":
				return historyJSON(out, hs, opt)
			default:
				historyText(out, hs, opt)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&by, "by", "", "the label whose values make the series (kernel), or time")
	f.StringVar(&workload, "workload", "", "the workload, with parameters to pick one benchmark: pipe:mode=thread")
	f.StringVar(&metric, "metric", "", "the metric (default: the workload's first)")
	f.StringArrayVar(&labels, "label", nil, "only sets with this label, k=v (repeatable)")
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(historyFormats, ", "))
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
	if by == store.ByTime {
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

// historyTitle is the heading of a series: the benchmark, the metric and
// its direction.
func historyTitle(h *store.Series) string {
	t := h.Workload
	if len(h.Params) > 0 {
		t += "  " + result.FormatParams(h.Params)
	}
	m := h.Metric.Name
	if h.Metric.Unit != "" && h.Metric.Unit != h.Metric.Name {
		m += " (" + h.Metric.Unit + ")"
	}
	dir := ""
	switch h.Metric.Better {
	case result.Higher:
		dir = ", higher is better"
	case result.Lower:
		dir = ", lower is better"
	}
	return fmt.Sprintf("%s: %s%s, by %s", t, m, dir, h.By)
}

// stepText describes a change point for a row.
func stepText(h *store.Series, cp *stats.ChangePoint) string {
	if cp == nil {
		return ""
	}
	verdict := string(stats.Improved)
	if store.Regressed(h.Metric, cp.Change) {
		verdict = string(stats.Regressed)
	}
	return fmt.Sprintf("<< step %s (%s, mean %s -> %s) %s", report.Pct(cp.Change), pValue(cp.P),
		report.Num(cp.Before), report.Num(cp.After), verdict)
}

func pValue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func changeText(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return report.Pct(x)
}

// byHeader is the heading of the label column.
func byHeader(h *store.Series) string {
	if h.By == store.ByTime {
		return "time (UTC)"
	}
	return h.By
}

func historyFooter(opt stats.ChangePointOptions) string {
	d := stats.DefaultChangePointOptions()
	if opt.MinMagnitude == 0 {
		opt.MinMagnitude = d.MinMagnitude
	}
	if opt.Alpha == 0 {
		opt.Alpha = d.Alpha
	}
	return fmt.Sprintf("change points: E-divisive means over every run, Welch's t at alpha %g, at least %s",
		opt.Alpha, strings.TrimPrefix(report.Pct(opt.MinMagnitude), "+"))
}

func historyText(w io.Writer, hs []*store.Series, opt stats.ChangePointOptions) {
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, historyTitle(h))
		// Labels left, numbers right, the change point last.
		head := []string{byHeader(h)}
		right := []bool{false}
		if h.By == store.ByTime {
			head = append(head, "set")
			right = append(right, false)
		}
		head = append(head, "n", "median", "change", "")
		right = append(right, true, true, true, false)
		rows := [][]string{head}
		for _, p := range h.Points {
			row := []string{p.Label}
			if h.By == store.ByTime {
				row = append(row, p.Sets[0])
			}
			row = append(row, strconv.Itoa(p.Summary.N), report.Num(p.Summary.Median), changeText(p.Change), stepText(h, p.Step))
			rows = append(rows, row)
		}
		writeAligned(w, "  ", rows, right)
		if len(h.Steps) == 0 {
			fmt.Fprintln(w, "  no change points")
		}
	}
	fmt.Fprintln(w, historyFooter(opt))
}

// writeAligned writes rows as columns two spaces apart, each cell of a
// right column aligned right, without trailing blanks.
func writeAligned(w io.Writer, indent string, rows [][]string, right []bool) {
	width := make([]int, len(right))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func historyMarkdown(w io.Writer, hs []*store.Series, opt stats.ChangePointOptions) {
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n", historyTitle(h))
		fmt.Fprintf(w, "| %s | n | median | change | change point |\n|---|--:|--:|--:|---|\n", byHeader(h))
		for _, p := range h.Points {
			label := p.Label
			if h.By == store.ByTime {
				label += " " + p.Sets[0]
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", label, p.Summary.N, report.Num(p.Summary.Median),
				changeText(p.Change), strings.TrimPrefix(stepText(h, p.Step), "<< "))
		}
	}
	fmt.Fprintf(w, "\n%s\n", historyFooter(opt))
}

// num writes a float for CSV and JSON: shortest exact form, empty (CSV)
// for NaN.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 12, 64)
}

func historyCSV(w io.Writer, hs []*store.Series) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"workload", "params", "metric", "unit", "better", "by", "label", "sets", "n", "median", "mean", "stddev", "change", "step", "step_p"})
	for _, h := range hs {
		for _, p := range h.Points {
			step, stepP := "", ""
			if p.Step != nil {
				step, stepP = num(p.Step.Change), num(p.Step.P)
			}
			cw.Write([]string{h.Workload, result.FormatParams(h.Params), h.Metric.Name, h.Metric.Unit, string(h.Metric.Better),
				h.By, p.Label, strings.Join(p.Sets, " "), strconv.Itoa(p.Summary.N), num(p.Summary.Median), num(p.Summary.Mean),
				num(p.Summary.Stddev), num(p.Change), step, stepP})
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonNum is a float that is null when it is not finite.
type jsonNum float64

func (x jsonNum) MarshalJSON() ([]byte, error) {
	if s := num(float64(x)); s != "" {
		return []byte(s), nil
	}
	return []byte("null"), nil
}

func historyJSON(w io.Writer, hs []*store.Series, opt stats.ChangePointOptions) error {
	type step struct {
		Change  jsonNum `json:"change"`
		P       jsonNum `json:"p"`
		Before  jsonNum `json:"before"`
		After   jsonNum `json:"after"`
		Verdict string  `json:"verdict"`
	}
	type point struct {
		Label  string   `json:"label"`
		Sets   []string `json:"sets"`
		N      int      `json:"n"`
		Median jsonNum  `json:"median"`
		Mean   jsonNum  `json:"mean"`
		Stddev jsonNum  `json:"stddev"`
		Change jsonNum  `json:"change"`
		Step   *step    `json:"step,omitempty"`
	}
	type series struct {
		Workload   string            `json:"workload"`
		Params     map[string]string `json:"params"`
		Metric     result.Metric     `json:"metric"`
		By         string            `json:"by"`
		Points     []point           `json:"points"`
		Unlabelled int               `json:"unlabelled,omitempty"`
	}
	d := stats.DefaultChangePointOptions()
	doc := struct {
		MinChange float64  `json:"min_change"`
		Alpha     float64  `json:"alpha"`
		Series    []series `json:"series"`
	}{MinChange: d.MinMagnitude, Alpha: d.Alpha}
	if opt.MinMagnitude > 0 {
		doc.MinChange = opt.MinMagnitude
	}
	if opt.Alpha > 0 {
		doc.Alpha = opt.Alpha
	}
	for _, h := range hs {
		s := series{Workload: h.Workload, Params: h.Params, Metric: h.Metric, By: h.By, Unlabelled: h.Unlabelled}
		if s.Params == nil {
			s.Params = map[string]string{}
		}
		for _, p := range h.Points {
			pt := point{Label: p.Label, Sets: p.Sets, N: p.Summary.N, Median: jsonNum(p.Summary.Median),
				Mean: jsonNum(p.Summary.Mean), Stddev: jsonNum(p.Summary.Stddev), Change: jsonNum(p.Change)}
			if cp := p.Step; cp != nil {
				v := string(stats.Improved)
				if store.Regressed(h.Metric, cp.Change) {
					v = string(stats.Regressed)
				}
				pt.Step = &step{jsonNum(cp.Change), jsonNum(cp.P), jsonNum(cp.Before), jsonNum(cp.After), v}
			}
			s.Points = append(s.Points, pt)
		}
		doc.Series = append(doc.Series, s)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
