package report

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/stats"
)

// historyView is what the history template shows: per series its plot,
// its table of points and its change points.
type historyView struct {
	Series []seriesView
	Footer string
}

type seriesView struct {
	Title  string
	By     string
	Chart  string
	Points []pointView
	Steps  []stepView
	// Emulated names the points measured under TCG (emulatedNote).
	Emulated string
}

type pointView struct {
	Label, N, Median, Change, Step string
}

type stepView struct {
	Text string
	Link string
}

// WriteHistoryHTML writes the series hs, made with the change-point
// options opt, as one self-contained HTML page.
func WriteHistoryHTML(w io.Writer, hs []*history.Series, opt stats.ChangePointOptions, hopt HTMLOptions) error {
	body, charts, err := HistoryHTML(hs, opt, hopt)
	if err != nil {
		return err
	}
	title := "kdelta history"
	if len(hs) > 0 {
		title += ": " + historyTitle(hs[0])
	}
	return writePage(w, title, body, charts, hopt)
}

// HistoryHTML returns the body of the history page and its charts.
func HistoryHTML(hs []*history.Series, opt stats.ChangePointOptions, hopt HTMLOptions) (template.HTML, []chart, error) {
	v := historyView{Footer: historyFooter(opt)}
	var charts []chart
	for _, h := range hs {
		c := historyChart(h, hopt)
		c.ID = chartID("h", len(charts))
		charts = append(charts, c)
		sv := seriesView{Title: historyTitle(h), By: byHeader(h), Chart: c.ID, Emulated: emulatedNote(h)}
		for _, p := range h.Points {
			sv.Points = append(sv.Points, pointView{Label: p.Label, N: fmt.Sprint(p.Summary.N), Median: Num(p.Summary.Median),
				Change: changeText(p.Change), Step: stepText(h, p.Step)})
		}
		for i, cp := range h.Steps {
			sv.Steps = append(sv.Steps, stepView{Text: fmt.Sprintf("at %s: %s", cp.Label, stepText(h, &h.Steps[i])), Link: c.Steps[i].Link})
		}
		v.Series = append(v.Series, sv)
	}
	body, err := part("history", v)
	return body, charts, err
}

// historyChart is a column of runs per build in the series' order, the
// builds' medians, and each segment between change points drawn at its
// mean, the steps labelled with their p-value.
func historyChart(h *history.Series, opt HTMLOptions) chart {
	c := chart{Kind: "history", Title: historyTitle(h), YUnit: unitText(h.Metric.Name, h.Metric.Unit)}
	runs := series{Name: "runs", Role: "runs"}
	outs := series{Name: "outliers", Role: "outliers"}
	med := series{Name: "median", Role: "line"}
	total := 0
	for _, p := range h.Points {
		total += len(p.Values)
	}
	limit := opt.maxPoints()
	for i, p := range h.Points {
		c.XNames = append(c.XNames, p.Label)
		c.Runs += len(p.Values)
		share := len(p.Values)
		if total > limit {
			share = max(1, len(p.Values)*limit/total)
		}
		r, o := runSeries(p.Values, share, func(k int) float64 { return float64(i) + jitter(k) })
		runs.X, runs.Y, runs.Run = append(runs.X, r.X...), append(runs.Y, r.Y...), append(runs.Run, r.Run...)
		outs.X, outs.Y, outs.Run = append(outs.X, o.X...), append(outs.Y, o.Y...), append(outs.Run, o.Run...)
		if finite(p.Summary.Median) && p.Summary.N > 0 {
			med.X, med.Y = append(med.X, float64(i)), append(med.Y, p.Summary.Median)
		}
	}
	c.Shown = len(runs.X) + len(outs.X)
	c.Series = []series{runs, outs, med}
	// The segments between steps at their means, as the detection
	// measured them.
	start := 0
	for i, cp := range h.Steps {
		end := cp.Index
		c.Lines = append(c.Lines, mark{Kind: "segment", X0: float64(start) - 0.4, X1: float64(end) - 0.6, Y0: cp.Before, Y1: cp.Before})
		if i == len(h.Steps)-1 {
			c.Lines = append(c.Lines, mark{Kind: "segment", X0: float64(end) - 0.4, X1: float64(len(h.Points)) - 0.6, Y0: cp.After, Y1: cp.After})
		}
		// The label carries no figure: the size of the step is the
		// table's change on its row (stepText).
		s := step{X: float64(cp.Index) - 0.5, Label: "step (" + PValue(cp.P) + ")"}
		if cp.Figures {
			s.Label = "step (untested)"
		}
		if opt.CompareURL != nil && cp.Index > 0 && cp.Index < len(h.Points) {
			s.Link = opt.CompareURL(h.Points[cp.Index-1].Sets, h.Points[cp.Index].Sets)
		}
		c.Steps = append(c.Steps, s)
		start = end
	}
	c.LogY = logSpan(runs.Y)
	return c
}

// logSpan tells whether positive values span more than two decades, when
// a log axis shows them better.
func logSpan(ys []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if y <= 0 {
			return false
		}
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	return len(ys) > 0 && hi/lo > 100
}
