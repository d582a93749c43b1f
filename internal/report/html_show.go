package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// showView is what the show template shows: the set's labels and, per
// benchmark and metric, its summary and its runs in order.
type showView struct {
	ID, Created, Tool string
	Labels            []labelView
	Benchmarks        []benchView
	Warnings          []string
}

type labelView struct{ Key, Value string }

type benchView struct {
	Key      string
	Skipped  string
	Metrics  []metricView
	Counters *counterTable
}

type metricView struct {
	Name, Text string
	Warnings   []string
	Chart      string
}

// WriteShowHTML writes the set s as one self-contained HTML page.
func WriteShowHTML(w io.Writer, s *result.Set, opt HTMLOptions) error {
	body, charts, err := ShowHTML(s, opt)
	if err != nil {
		return err
	}
	return writePage(w, "kdelta show: "+s.ID+labelSuffix(s.Labels), body, charts, opt)
}

// ShowHTML returns the body of the set's page and its charts.
func ShowHTML(s *result.Set, opt HTMLOptions) (template.HTML, []chart, error) {
	v := showView{ID: s.ID, Tool: s.Tool, Warnings: s.Warnings}
	if !s.Created.IsZero() {
		v.Created = s.Created.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v.Labels = append(v.Labels, labelView{k, s.Labels[k]})
	}
	var charts []chart
	for _, b := range s.Benchmarks {
		bv := benchView{Key: strings.TrimSpace(b.Workload + "  " + result.FormatParams(b.Params)), Skipped: b.Skipped}
		for _, m := range b.Metrics {
			xs := b.Values(m.Name)
			mv := metricView{Name: metricLabel(m)}
			if len(xs) == 0 {
				if sm, ok := b.Summaries[m.Name]; ok {
					mv.Text = fmt.Sprintf("n=%d  %s ( +- %.2f%% ), a summary", sm.N, Num(sm.Mean), 100*sm.StdErr/math.Abs(sm.Mean))
				} else {
					mv.Text = "no runs"
				}
				bv.Metrics = append(bv.Metrics, mv)
				continue
			}
			sm := stats.Summarize(xs)
			mv.Text = fmt.Sprintf("n=%d  %s ± %s (%.1f%%)  med %s  min %s  max %s  (%s is better)", sm.N, Num(sm.Mean), Num(sm.Stddev), sm.CV,
				Num(sm.Median), Num(sm.Min), Num(sm.Max), m.Better)
			for _, k := range stats.Outliers(xs) {
				mv.Warnings = append(mv.Warnings, fmt.Sprintf("run %d (%s) is an outlier (modified z-score > 3.5)", k+1, Num(xs[k])))
			}
			if c, ok := orderChart(m, []*result.Benchmark{b}, []int{len(xs)}, opt); ok {
				c.ID = chartID("s", len(charts))
				c.Series[0].Name, c.Series[1].Name = "runs", "outliers"
				charts = append(charts, c)
				mv.Chart = c.ID
			}
			bv.Metrics = append(bv.Metrics, mv)
		}
		bv.Counters = counters([]*result.Benchmark{b}, []string{s.ID})
		v.Benchmarks = append(v.Benchmarks, bv)
	}
	body, err := part("show", v)
	return body, charts, err
}

// profileView is what the profile template shows per diff: the text
// output's heading, and per symbol its shares, the change as a diverging
// bar, and samples per operation.
type profileView struct {
	Diffs []diffView
}

type diffView struct {
	Name    string
	Head    []string
	Header  []string
	Rows    []diffRowView
	Omitted int
}

type diffRowView struct {
	Cells []string
	// Left and Right are the bar's extent in percent of the half width,
	// one of them 0: a loss of share grows left, a gain right.
	Left, Right float64
	Change      string
}

// WriteProfileDiffHTML writes profile diffs as one self-contained HTML
// page; top <= 0 shows every symbol.
func WriteProfileDiffHTML(w io.Writer, diffs []*profile.Diff, top int, opt HTMLOptions) error {
	body, err := ProfileDiffHTML(diffs, top)
	if err != nil {
		return err
	}
	return writePage(w, "kdelta profile diff", body, nil, opt)
}

// ProfileDiffHTML returns the body of the profile diff page.
func ProfileDiffHTML(diffs []*profile.Diff, top int) (template.HTML, error) {
	var v profileView
	for _, d := range diffs {
		dv := diffView{Name: d.Name, Header: diffHeader(d)}
		if dv.Name == "" {
			dv.Name = "profile diff"
		}
		var head bytes.Buffer
		diffHead(&head, d, false)
		for _, l := range strings.Split(strings.TrimRight(head.String(), "\n"), "\n")[1:] {
			dv.Head = append(dv.Head, strings.TrimSpace(l))
		}
		rows := d.Rows
		if top > 0 && len(rows) > top {
			dv.Omitted = len(rows) - top
			rows = rows[:top]
		}
		widest := 0.0
		for _, r := range rows {
			widest = math.Max(widest, math.Abs(r.Delta))
		}
		for _, r := range rows {
			rv := diffRowView{Cells: diffRow(d, r, false), Change: fmt.Sprintf("%+.2f pp", r.Delta)}
			if widest > 0 && finite(r.Delta) {
				if f := 100 * math.Abs(r.Delta) / widest; r.Delta < 0 {
					rv.Left = f
				} else {
					rv.Right = f
				}
			}
			dv.Rows = append(dv.Rows, rv)
		}
		v.Diffs = append(v.Diffs, dv)
	}
	return part("profile", v)
}

// ProfileDiffFormats are the formats of kdelta profile diff:
// WriteProfileDiffs's and the HTML page.
var ProfileDiffFormats = append(ProfileFormats[:len(ProfileFormats):len(ProfileFormats)], HTMLFormat)
