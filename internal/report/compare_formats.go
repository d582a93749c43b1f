package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// compareMarkdown prints one table: a row per workload × metric, the
// baseline's and each set's mean ± stddev, change, interval, p and verdict.
func compareMarkdown(w io.Writer, r *compare.Result) {
	conds := false
	for i, cs := range r.Conditions {
		for _, d := range cs {
			fmt.Fprintf(w, "- **run conditions** %s vs %s: %s\n", r.Names[i+1], r.Names[0], d)
			conds = true
		}
	}
	if conds {
		fmt.Fprintln(w)
	}
	for i, env := range r.Env {
		for _, d := range env {
			fmt.Fprintf(w, "- %s vs %s: %s\n", r.Names[i+1], r.Names[0], d)
		}
	}
	if len(r.Env) > 0 && len(r.Env[0]) > 0 {
		fmt.Fprintln(w)
	}
	header := []string{"workload", "metric"}
	for i, n := range r.Names {
		header = append(header, n)
		if i > 0 {
			header = append(header, "change", "95% CI", "p", "verdict")
		}
	}
	rows := [][]string{header}
	for _, row := range r.Rows {
		cells := []string{row.Workload + " " + row.Params, metricLabel(row.Metric)}
		for i, s := range row.Sides {
			cells = append(cells, fmt.Sprintf("%s ± %s (n=%d)", Num(s.Summary.Mean), Num(s.Summary.Stddev), s.Summary.N))
			if i > 0 && row.Figures(i-1) {
				cells = append(cells, figureCells(row.Vs[i-1], row.Metric)...)
				continue
			}
			if i > 0 {
				c := row.Vs[i-1]
				ci, p := Interval(c.CI), fmt.Sprintf("%.3g", c.P)
				if c.Design.NoiseUnknown {
					ci, p = "-", "-" // no interval and no test
				}
				cells = append(cells, Pct(c.Change), ci, p, verdictLine(c))
			}
		}
		rows = append(rows, cells)
	}
	writeMarkdownLeft(w, rows)
	for _, lt := range r.Latency {
		fmt.Fprintf(w, "\n%s %s\n\n", lt.Workload, lt.Params)
		latencySummary(w, lt, r.Names)
		fmt.Fprintln(w)
		latencyRuns(w, lt, r.Names)
	}
	for _, ft := range r.Functions {
		fmt.Fprintf(w, "\n%s %s\n\n", ft.Workload, ft.Params)
		funcTable(w, "    ", ft)
	}
	for i, g := range r.GeoMean {
		if math.IsNaN(g) {
			fmt.Fprintf(w, "\ngeomean cost ratio %s/%s: none (%s)\n", r.Names[i+1], r.Names[0], noGeoMean)
			continue
		}
		fmt.Fprintf(w, "\ngeomean cost ratio %s/%s: %.4f (%s)\n", r.Names[i+1], r.Names[0], g, Pct(g-1))
	}
}

// writeMarkdownLeft writes a Markdown table with left-aligned cells.
func writeMarkdownLeft(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-len([]rune(c))) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(rows[0])
	var b strings.Builder
	b.WriteString("|")
	for _, wd := range width {
		b.WriteString(strings.Repeat("-", wd+2) + "|")
	}
	fmt.Fprintln(w, b.String())
	for _, r := range rows[1:] {
		line(r)
	}
}

// compareCSV writes one record per workload × metric × set.
func compareCSV(w io.Writer, r *compare.Result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"workload", "params", "metric", "unit", "better", "set", "n", "mean", "stddev", "cv_pct",
		"median", "min", "max", "change", "ci_lo", "ci_hi", "p", "verdict", "need_runs", "from_summary"})
	f := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 10, 64)
	}
	for _, row := range r.Rows {
		for i, s := range row.Sides {
			sm := s.Summary
			rec := []string{row.Workload, row.Params, row.Metric.Name, row.Metric.Unit, string(row.Metric.Better), r.Names[i],
				strconv.Itoa(sm.N), f(sm.Mean), f(sm.Stddev), f(sm.CV), f(sm.Median), f(sm.Min), f(sm.Max)}
			if i == 0 {
				rec = append(rec, "", "", "", "", "", "")
			} else {
				c := row.Vs[i-1]
				rec = append(rec, f(c.Change), f(c.CI[0]), f(c.CI[1]), f(c.P), string(c.Verdict), strconv.Itoa(c.NeedRuns))
			}
			rec = append(rec, strconv.FormatBool(s.FromSummary))
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

// jnum is a float that encodes NaN and infinities as null.
type jnum float64

func (x jnum) MarshalJSON() ([]byte, error) {
	if s := dataNum(float64(x)); s != "" {
		return []byte(s), nil
	}
	return []byte("null"), nil
}

func compareJSON(w io.Writer, r *compare.Result) error {
	type summary struct {
		N                                  int
		Mean, Stddev, CV, Median, Min, Max jnum
		FromSummary                        bool `json:"from_summary"`
	}
	type vs struct {
		Change       jnum         `json:"change"`
		CI           [2]jnum      `json:"ci"`
		P            jnum         `json:"p"`
		Verdict      string       `json:"verdict"`
		NeedRuns     int          `json:"need_runs,omitempty"`
		NeedSessions int          `json:"need_sessions,omitempty"`
		BelowNoise   bool         `json:"below_noise,omitempty"`
		Design       stats.Design `json:"design"`
		Warnings     []string     `json:"warnings,omitempty"`
	}
	type row struct {
		Workload string        `json:"workload"`
		Params   string        `json:"params"`
		Metric   result.Metric `json:"metric"`
		Sets     []summary     `json:"sets"`
		Vs       []vs          `json:"vs_baseline"`
	}
	out := struct {
		Schema   string     `json:"schema"`
		Names    []string   `json:"names"`
		Conds    [][]string `json:"run_condition_differences,omitempty"`
		Env      [][]string `json:"env_differences"`
		Rows     []row      `json:"rows"`
		GeoMean  []jnum     `json:"geomean_cost_ratio"`
		Warnings []string   `json:"warnings,omitempty"`
	}{Schema: "kdelta/compare/v1", Names: r.Names, Env: r.Env, Warnings: r.Warnings}
	for _, g := range r.GeoMean {
		out.GeoMean = append(out.GeoMean, jnum(g))
	}
	for _, cs := range r.Conditions {
		out.Conds = append(out.Conds, result.ConditionStrings(cs))
	}
	if len(slices.Concat(out.Conds...)) == 0 {
		out.Conds = nil
	}
	for _, rw := range r.Rows {
		o := row{Workload: rw.Workload, Params: rw.Params, Metric: rw.Metric}
		for _, s := range rw.Sides {
			sm := s.Summary
			o.Sets = append(o.Sets, summary{sm.N, jnum(sm.Mean), jnum(sm.Stddev), jnum(sm.CV), jnum(sm.Median), jnum(sm.Min), jnum(sm.Max), s.FromSummary})
		}
		for _, c := range rw.Vs {
			o.Vs = append(o.Vs, vs{jnum(c.Change), [2]jnum{jnum(c.CI[0]), jnum(c.CI[1])}, jnum(c.P), string(c.Verdict), c.NeedRuns, c.NeedSessions, c.BelowNoise, c.Design, c.Warnings})
		}
		out.Rows = append(out.Rows, o)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Benchfmt writes the measured runs of every set compared in the Go
// benchmark format, through result.WriteBenchfmt, with each set's labels
// as configuration keys and "set" naming it, so benchstat reads them:
// benchstat -col set FILE.
func Benchfmt(w io.Writer, ins []compare.Input) error {
	sets := make([]*result.Set, len(ins))
	names := make([]string, len(ins))
	for i, in := range ins {
		sets[i], names[i] = in.Set, in.Name
	}
	return result.WriteBenchfmt(w, sets, names)
}
