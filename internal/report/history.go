package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// HistoryFormats are the formats WriteHistory knows.
var HistoryFormats = []string{"text", "markdown", "csv", "json", HTMLFormat}

// WriteHistory renders the series of kdelta history in format; opt are
// the change-point options they were made with, which the output states.
func WriteHistory(w io.Writer, hs []*history.Series, opt stats.ChangePointOptions, format string) error {
	switch format {
	case "", "text":
		historyText(w, hs, opt)
	case "markdown":
		historyMarkdown(w, hs, opt)
	case "csv":
		return historyCSV(w, hs)
	case "json":
		return historyJSON(w, hs, opt)
	case HTMLFormat:
		return WriteHistoryHTML(w, hs, opt, HTMLOptions{})
	default:
		return CheckFormat(format, HistoryFormats)
	}
	return nil
}

// historyTitle is the heading of a series: the benchmark, the metric and
// its direction.
func historyTitle(h *history.Series) string {
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

// stepText marks the row where a change point starts, with no figure
// of its own: the size of the step is the row's change (the medians on
// either side) and, in kdelta series, the step line's comparison of the
// two builds with its interval. Where the series is judged
// (history.Series.Judge), the marker's verdict is that comparison's, the
// one the step line prints; otherwise the change point's own test (its
// p-value and direction). The change point's estimate (the means of the
// segments it splits) stays in the data formats, named "step".
func stepText(h *history.Series, cp *stats.ChangePoint) string {
	if cp == nil {
		return ""
	}
	var versus *history.Neighbour
	if cp.Index >= 0 && cp.Index < len(h.Points) {
		versus = h.Points[cp.Index].Versus
	}
	judged := versus != nil && versus.Comparison.A.N > 0 && !cp.Figures
	// The verdict, with its caveat where the timings are emulated (a
	// judged step's comparison carries its own).
	verdict := string(h.StepVerdict(*cp))
	if cp.Figures {
		verdict = "(one value a point: untested)"
	}
	if judged {
		verdict = VerdictText(versus.Comparison)
	} else if stepEmulated(h, cp) {
		verdict += ", " + EmulatedText
	}
	lead := fmt.Sprintf("<< step (%s) ", PValue(cp.P))
	switch {
	case judged:
		lead = "<< step: "
	case cp.Figures:
		lead = "<< step "
	}
	ds := h.StepConditions(*cp)
	switch {
	case len(ds) == 0:
		return lead + verdict
	case cp.Figures:
		return lead + verdict + ", where the run conditions change (" + conditionList(ds) + ")"
	case judged:
		return lead + verdict + ", where the run conditions change (" + conditionList(ds) + "), not only the " + h.By
	}
	// Not the kernel's step, as far as anyone can tell: say whose, and
	// no verdict of the kernel.
	what := "where the run conditions change (" + conditionList(ds) + "), not only the " + h.By
	if stepEmulated(h, cp) {
		what += ", " + EmulatedText
	}
	return lead + what
}

// stepEmulated tells whether a point on either side of the change point
// cp was measured under TCG emulation.
func stepEmulated(h *history.Series, cp *stats.ChangePoint) bool {
	for _, i := range []int{cp.Index - 1, cp.Index} {
		if i >= 0 && i < len(h.Points) && h.Points[i].Emulated {
			return true
		}
	}
	return false
}

// emulatedNote names the points of h measured under TCG emulation, whose
// timings are qemu's: "" when none is.
func emulatedNote(h *history.Series) string {
	var which []string
	for _, p := range h.Points {
		if p.Emulated {
			which = append(which, p.Label)
		}
	}
	by := h.By
	if by == history.ByTime {
		by = "set"
	}
	switch {
	case len(which) == 0:
		return ""
	case len(which) == len(h.Points):
		return "every " + by + ": " + EmulatedText
	}
	return by + " " + strings.Join(which, ", ") + ": " + EmulatedText
}

// conditionList joins condition differences for one line.
func conditionList(ds []result.ConditionDiff) string {
	return strings.Join(result.ConditionStrings(ds), "; ")
}

func changeText(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return Pct(x)
}

// byHeader is the heading of the label column.
func byHeader(h *history.Series) string {
	if h.By == history.ByTime {
		return "time (UTC)"
	}
	return h.By
}

// withDefaults fills the options left zero with the defaults the
// detection used.
func withDefaults(opt stats.ChangePointOptions) stats.ChangePointOptions {
	d := stats.DefaultChangePointOptions()
	if opt.MinMagnitude <= 0 {
		opt.MinMagnitude = d.MinMagnitude
	}
	if opt.Alpha <= 0 {
		opt.Alpha = d.Alpha
	}
	return opt
}

func historyFooter(opt stats.ChangePointOptions) string {
	opt = withDefaults(opt)
	return fmt.Sprintf("change points: E-divisive means over every run, Welch's t at alpha %g, at least %s",
		opt.Alpha, strings.TrimPrefix(Pct(opt.MinMagnitude), "+"))
}

func historyText(w io.Writer, hs []*history.Series, opt stats.ChangePointOptions) {
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, historyTitle(h))
		// Labels left, numbers right, the change point last.
		head := []string{byHeader(h)}
		right := []bool{false}
		if h.By == history.ByTime {
			head = append(head, "set")
			right = append(right, false)
		}
		head = append(head, "n", "median", "change", "")
		right = append(right, true, true, true, false)
		rows := [][]string{head}
		for _, p := range h.Points {
			row := []string{p.Label}
			if h.By == history.ByTime {
				row = append(row, p.Sets[0])
			}
			row = append(row, strconv.Itoa(p.Summary.N), Num(p.Summary.Median), changeText(p.Change), stepText(h, p.Step))
			rows = append(rows, row)
		}
		writeAligned(w, "  ", rows, right)
		if len(h.Steps) == 0 {
			fmt.Fprintln(w, "  no change points")
		}
		if note := emulatedNote(h); note != "" {
			fmt.Fprintln(w, "  "+note)
		}
		for _, p := range h.Points {
			if len(p.Mixed) > 0 {
				fmt.Fprintf(w, "  warning: %s %s: its sets ran under different conditions (%s)\n", h.By, p.Label, conditionList(p.Mixed))
			}
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

func historyMarkdown(w io.Writer, hs []*history.Series, opt stats.ChangePointOptions) {
	for i, h := range hs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "**%s**\n\n", historyTitle(h))
		fmt.Fprintf(w, "| %s | n | median | change | change point |\n|---|--:|--:|--:|---|\n", byHeader(h))
		for _, p := range h.Points {
			label := p.Label
			if h.By == history.ByTime {
				label += " " + p.Sets[0]
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", label, p.Summary.N, Num(p.Summary.Median),
				changeText(p.Change), strings.TrimPrefix(stepText(h, p.Step), "<< "))
		}
		if note := emulatedNote(h); note != "" {
			fmt.Fprintf(w, "\n%s\n", note)
		}
	}
	fmt.Fprintf(w, "\n%s\n", historyFooter(opt))
}

func historyCSV(w io.Writer, hs []*history.Series) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"workload", "params", "metric", "unit", "better", "by", "label", "sets", "n", "median", "mean", "stddev", "change", "step", "step_p"})
	for _, h := range hs {
		for _, p := range h.Points {
			step, stepP := "", ""
			if p.Step != nil {
				step, stepP = dataNum(p.Step.Change), dataNum(p.Step.P)
			}
			cw.Write([]string{h.Workload, result.FormatParams(h.Params), h.Metric.Name, h.Metric.Unit, string(h.Metric.Better),
				h.By, p.Label, strings.Join(p.Sets, " "), strconv.Itoa(p.Summary.N), dataNum(p.Summary.Median), dataNum(p.Summary.Mean),
				dataNum(p.Summary.Stddev), dataNum(p.Change), step, stepP})
		}
	}
	cw.Flush()
	return cw.Error()
}

func historyJSON(w io.Writer, hs []*history.Series, opt stats.ChangePointOptions) error {
	type step struct {
		Change  jnum   `json:"change"`
		P       jnum   `json:"p"`
		Before  jnum   `json:"before"`
		After   jnum   `json:"after"`
		Verdict string `json:"verdict"`
		// Conditions are the run conditions that change at the step.
		Conditions []string `json:"conditions_changed,omitempty"`
	}
	type point struct {
		Label  string   `json:"label"`
		Sets   []string `json:"sets"`
		N      int      `json:"n"`
		Median jnum     `json:"median"`
		Mean   jnum     `json:"mean"`
		Stddev jnum     `json:"stddev"`
		Change jnum     `json:"change"`
		Step   *step    `json:"step,omitempty"`
		// Emulated: measured under TCG, not the hardware's timing.
		Emulated bool `json:"emulated,omitempty"`
	}
	type series struct {
		Workload   string            `json:"workload"`
		Params     map[string]string `json:"params"`
		Metric     result.Metric     `json:"metric"`
		By         string            `json:"by"`
		Points     []point           `json:"points"`
		Unlabelled int               `json:"unlabelled,omitempty"`
	}
	opt = withDefaults(opt)
	doc := struct {
		MinChange float64  `json:"min_change"`
		Alpha     float64  `json:"alpha"`
		Series    []series `json:"series"`
	}{MinChange: opt.MinMagnitude, Alpha: opt.Alpha}
	for _, h := range hs {
		s := series{Workload: h.Workload, Params: h.Params, Metric: h.Metric, By: h.By, Unlabelled: h.Unlabelled}
		if s.Params == nil {
			s.Params = map[string]string{}
		}
		for _, p := range h.Points {
			pt := point{Label: p.Label, Sets: p.Sets, N: p.Summary.N, Median: jnum(p.Summary.Median),
				Mean: jnum(p.Summary.Mean), Stddev: jnum(p.Summary.Stddev), Change: jnum(p.Change), Emulated: p.Emulated}
			if cp := p.Step; cp != nil {
				pt.Step = &step{jnum(cp.Change), jnum(cp.P), jnum(cp.Before), jnum(cp.After), string(h.StepVerdict(*cp)), nil}
				if ds := h.StepConditions(*cp); len(ds) > 0 {
					pt.Step.Conditions = result.ConditionStrings(ds)
				}
			}
			s.Points = append(s.Points, pt)
		}
		doc.Series = append(doc.Series, s)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
