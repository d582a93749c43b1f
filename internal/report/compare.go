package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// CompareFormats are the formats WriteCompare knows.
var CompareFormats = []string{"text", "markdown", "csv", "json", "benchfmt", HTMLFormat}

// WriteCompare renders a comparison in format.
func WriteCompare(w io.Writer, r *compare.Result, format string) error {
	switch format {
	case "", "text":
		compareText(w, r)
	case "markdown":
		compareMarkdown(w, r)
	case "csv":
		return compareCSV(w, r)
	case "json":
		return compareJSON(w, r)
	case "benchfmt":
		return Benchfmt(w, r.Inputs)
	case HTMLFormat:
		return WriteCompareHTML(w, r, HTMLOptions{})
	default:
		return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(CompareFormats, ", "))
	}
	return nil
}

// Pct formats a relative change as a signed percentage.
func Pct(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	a := math.Abs(x * 100)
	prec := 1
	if a >= 100 {
		prec = 0
	} else if a < 1 {
		prec = 2
	}
	return fmt.Sprintf("%+.*f%%", prec, x*100)
}

// NoiseUnknownText is the verdict of a comparison with one session on a
// side and no session noise known for the host, after "inconclusive: ".
const NoiseUnknownText = "session noise unknown here: run `kdelta calibrate` or compare interleaved (`ab`, `vm --boots`)"

// EmulatedText follows the verdict of a comparison measured under TCG.
const EmulatedText = "emulated (TCG): not the hardware's timing"

// VerdictText is the verdict with, when inconclusive, what would settle
// it: more runs, more sessions, a calibration of the host's session noise,
// or nothing bounded (the change far below the noise).
func VerdictText(c stats.Comparison) string {
	if c.Emulated {
		// The caveat goes with the verdict, wherever it is printed.
		c.Emulated = false
		return VerdictText(c) + ", " + EmulatedText
	}
	if c.Verdict != stats.Inconclusive {
		return string(c.Verdict)
	}
	switch {
	case c.Design.NoiseUnknown && c.Design.Sessions == [2]int{1, 1}:
		return "inconclusive: one session each, " + NoiseUnknownText
	case c.Design.NoiseUnknown:
		return "inconclusive: one session on a side, " + NoiseUnknownText
	case c.NeedSessions > 0:
		return fmt.Sprintf("inconclusive (need ≈%d sessions)", c.NeedSessions)
	case c.BelowNoise && c.Design.Noise.Source != stats.NoiseMeasured:
		return "inconclusive (the change is far below the session noise assumed)"
	case c.BelowNoise:
		return "inconclusive (the change is far below this host's noise)"
	case c.NeedRuns > 0:
		return fmt.Sprintf("inconclusive (need ≈%d runs)", c.NeedRuns)
	}
	return string(c.Verdict)
}

// DesignText says which design a comparison judged, in parentheses:
// "(8 runs × 1 session each, session noise ±6.3%)", "(10 runs each,
// interleaved in 1 session)"; "" when the comparison knew no sessions.
func DesignText(c stats.Comparison) string {
	d := c.Design
	if d.Runs == [2]int{} {
		return ""
	}
	plural := func(n int, one string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	if d.Shared {
		runs := plural(d.Runs[0], "run") + " each"
		if d.Runs[0] != d.Runs[1] {
			runs = fmt.Sprintf("%d and %d runs", d.Runs[0], d.Runs[1])
		}
		return fmt.Sprintf("(%s, interleaved in %s)", runs, plural(d.Sessions[0], "session"))
	}
	side := func(i int) string {
		k := max(d.Sessions[i], 1)
		per := plural(d.Runs[i]/k, "run")
		if d.Runs[i]%k != 0 {
			per = fmt.Sprintf("≈%.3g runs", float64(d.Runs[i])/float64(k))
		}
		return per + " × " + plural(d.Sessions[i], "session")
	}
	text := side(0) + " each"
	if side(0) != side(1) {
		text = side(0) + " vs " + side(1)
	}
	if own := d.Own; own.Known() {
		// Sessions on both sides: the noise is theirs.
		text += fmt.Sprintf(", session noise ±%.1f%% from these %d sessions", 100*own.SD, d.Sessions[0]+d.Sessions[1])
		switch {
		case d.Noise.Known() && d.Noise.Source == stats.NoiseMeasured:
			text += fmt.Sprintf(" pooled with this host's ±%.1f%%", 100*d.Noise.SD)
		case d.Noise.Known() && d.Noise.Source == stats.NoiseGiven:
			text += fmt.Sprintf(" pooled with the ±%.1f%% given (--session-noise)", 100*d.Noise.SD)
		}
	} else if a := d.Noise.Assumption(); a != "" {
		text += ", " + a
	} else if d.Noise.Known() {
		text += fmt.Sprintf(", session noise ±%.1f%%", 100*d.Noise.SD)
	}
	return "(" + text + ")"
}

// verdictLine is the verdict and the design it judged.
func verdictLine(c stats.Comparison) string {
	if d := DesignText(c); d != "" {
		return VerdictText(c) + " " + d
	}
	return VerdictText(c)
}

// letter names the sets A, B, C... in text output, as warnings name them.
func letter(i int) string { return compare.Letter(i) }

func compareText(w io.Writer, r *compare.Result) {
	for i, n := range r.Names {
		role := ""
		if i == 0 {
			role = " (baseline)"
		}
		fmt.Fprintf(w, "%s: %s%s\n", letter(i), Printable(n), role)
	}
	for i, cs := range r.Conditions {
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nrun conditions %s vs A (they move the figures as a kernel does):\n", letter(i+1))
		for _, d := range cs {
			writeWrapped(w, "  ! ", d.String(), 100)
		}
	}
	for i, env := range r.Env {
		if len(env) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nenvironment %s vs A:\n", letter(i+1))
		for _, d := range env {
			writeWrapped(w, "  ", d, 100)
		}
	}
	last := ""
	for _, row := range r.Rows {
		key := strings.TrimSpace(row.Workload + "  " + row.Params)
		if key != last {
			fmt.Fprintf(w, "\n%s\n", key)
			last = key
			for _, lt := range r.Latency {
				if lt.Workload == row.Workload && lt.Params == row.Params {
					latencySummary(w, lt, r.Names)
				}
			}
			for _, ft := range r.Functions {
				if ft.Workload == row.Workload && ft.Params == row.Params {
					funcTable(w, "  ", ft)
				}
			}
		}
		if figureRowText(w, r, row) {
			continue
		}
		unit := row.Metric.Unit
		how := "± stddev (CV)"
		if row.FromSummaries {
			how = "± stddev from the summary; each summary one session"
		}
		fmt.Fprintf(w, "  %s (%s, %s; %s)\n", row.Metric.Name, unitOr(unit), BetterText(row.Metric.Better), how)
		for i, s := range row.Sides {
			sm := s.Summary
			line := fmt.Sprintf("    %s n=%-3d %s ± %s (%.1f%%)", letter(i), sm.N, Num(sm.Mean), Num(sm.Stddev), sm.CV)
			if !s.FromSummary {
				line += fmt.Sprintf("  med %s  min %s  max %s", Num(sm.Median), Num(sm.Min), Num(sm.Max))
			} else {
				line += fmt.Sprintf("  ( +- %.2f%% )", 100*sm.StdErr/math.Abs(sm.Mean))
			}
			fmt.Fprintln(w, line)
			if i > 0 {
				c := row.Vs[i-1]
				line := fmt.Sprintf("%s vs A: %s %s %s  %s", letter(i), Pct(c.Change), Interval(c.CI), PValue(c.P), verdictLine(c))
				if c.Design.NoiseUnknown {
					// No interval and no test: the change alone.
					line = fmt.Sprintf("%s vs A: %s  %s", letter(i), Pct(c.Change), verdictLine(c))
				}
				if len([]rune(line)) > 94 {
					writeWrapped(w, "      ", line, 100)
				} else {
					fmt.Fprintln(w, "      "+line)
				}
				for _, warn := range c.Warnings {
					fmt.Fprintf(w, "      warning: %s\n", warn)
				}
			}
		}
	}
	for _, lt := range r.Latency {
		fmt.Fprintf(w, "\n%s per run\n", strings.TrimSpace(lt.Workload+"  "+lt.Params))
		latencyRuns(w, lt, r.Names)
	}
	if len(r.GeoMean) > 0 {
		fmt.Fprintln(w)
		for i, g := range r.GeoMean {
			if math.IsNaN(g) {
				fmt.Fprintf(w, "geomean of cost ratios %s/A over workloads: none (%s)\n", letter(i+1), noGeoMean)
				continue
			}
			fmt.Fprintf(w, "geomean of cost ratios %s/A over workloads: %s (%s; below 1 is faster)\n", letter(i+1), fmt.Sprintf("%.4f", g), Pct(g-1))
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// BetterText says a metric's direction: "lower is better", "higher is
// better", or for a count of the kernel's work "no better side".
func BetterText(b result.Better) string {
	switch b {
	case result.Neither:
		return "no better side"
	case "":
		return "lower is better"
	}
	return string(b) + " is better"
}

func unitOr(u string) string {
	if u == "" {
		return "no unit"
	}
	return u
}

// latencySummary prints seed mail 002's summary lines: the mean of the run
// means and the largest maximum, baseline to each other set. The mean's
// words carry the verdict on the runs' means, never more than it says; the
// maximum is one sample a side, and says so.
func latencySummary(w io.Writer, lt compare.LatencyTable, names []string) {
	means := make([]float64, len(lt.Runs))
	maxes := make([]float64, len(lt.Runs))
	for i, runs := range lt.Runs {
		var sum float64
		maxes[i] = math.Inf(-1)
		for _, l := range runs {
			sum += l.Mean
			maxes[i] = math.Max(maxes[i], l.Max)
		}
		means[i] = sum / float64(len(runs))
	}
	for i := 1; i < len(lt.Runs); i++ {
		prefix := ""
		if len(lt.Runs) > 2 {
			prefix = letter(i) + " vs A: "
		}
		verdict := "no test of the means"
		a, b, what := means[0], means[i], ""
		if i-1 < len(lt.Mean) {
			// The verdict's own centres, so that the figures and the
			// change are one estimate: its centre is named.
			c := lt.Mean[i-1]
			verdict = c.Verdict.Words()
			if c.Centre != "" {
				a, b, what = c.Centres[0], c.Centres[1], " ("+c.Centre+" of the runs' means)"
			}
		}
		fmt.Fprintf(w, "  %sMean latency%s: %s -> %s (%s)\n", prefix, what, mailNum(a, lt.Unit), mailNum(b, lt.Unit), changeWords(a, b, verdict))
		fmt.Fprintf(w, "  %sMax latency: %s -> %s (%s; the largest of all runs, one sample a side: no test)\n", prefix, mailNum(maxes[0], lt.Unit), mailNum(maxes[i], lt.Unit), changeWords(maxes[0], maxes[i], ""))
	}
}

// mailNum formats a value as the summary lines of mails do: two decimals
// ("9.75 ms", "25.72 ms") for values from 1 to 1000.
func mailNum(v float64, unit string) string {
	if a := math.Abs(v); a >= 1 && a < 1000 {
		s := fmt.Sprintf("%.2f", v)
		if unit != "" {
			s += " " + unit
		}
		return s
	}
	return WithUnit(v, unit)
}

// changeWords says a latency change the way mails do — "38% improvement"
// — when the verdict is "improved" or "regressed" and agrees with the
// sign; else the size and the verdict ("38% lower, inconclusive"), or
// with no verdict (a single sample) the size alone ("60% lower").
func changeWords(a, b float64, verdict string) string {
	if a == 0 {
		return "no baseline"
	}
	ch := (b - a) / a
	if math.Abs(ch) < 0.005 {
		if verdict == "" {
			return "no change"
		}
		return "no change, " + verdict
	}
	size := fmt.Sprintf("%.0f%% lower", -ch*100)
	if ch > 0 {
		size = fmt.Sprintf("%.0f%% higher", ch*100)
	}
	switch {
	case verdict == "improved" && ch < 0:
		return fmt.Sprintf("%.0f%% improvement", -ch*100)
	case verdict == "regressed" && ch > 0:
		return fmt.Sprintf("%.0f%% regression", ch*100)
	case verdict == "":
		return size
	}
	return size + ", " + verdict
}

// latencyRuns prints the per-run tables side by side for two sets, one
// after another for more.
func latencyRuns(w io.Writer, lt compare.LatencyTable, names []string) {
	cell := func(v float64) string { return LatNum(v, lt.Unit) }
	if len(lt.Runs) == 2 {
		rows := [][]string{{"Run", "A Mean", "A Min", "A Max", "B Mean", "B Min", "B Max"}}
		n := max(len(lt.Runs[0]), len(lt.Runs[1]))
		for i := 0; i < n; i++ {
			row := []string{fmt.Sprint(i + 1)}
			for _, runs := range lt.Runs {
				if i < len(runs) {
					row = append(row, cell(runs[i].Mean), cell(runs[i].Min), cell(runs[i].Max))
				} else {
					row = append(row, "", "", "")
				}
			}
			rows = append(rows, row)
		}
		writeMarkdown(w, "  ", rows)
		return
	}
	for s, runs := range lt.Runs {
		fmt.Fprintf(w, "  %s:\n", letter(s))
		rows := [][]string{{"Run", "Mean", "Min", "Max"}}
		for i, l := range runs {
			rows = append(rows, []string{fmt.Sprint(i + 1), cell(l.Mean), cell(l.Min), cell(l.Max)})
		}
		writeMarkdown(w, "  ", rows)
	}
}

func metricLabel(m result.Metric) string {
	if m.Unit == "" || m.Unit == m.Name {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// WriteChanges prints `compare A B --and C D`: each change and the ratio of
// the two, with its interval.
func WriteChanges(w io.Writer, first, second []string, rows []compare.ChangeRow) {
	fmt.Fprintf(w, "change 1: %s -> %s\nchange 2: %s -> %s\n", first[0], first[1], second[0], second[1])
	last := ""
	for _, r := range rows {
		if k := r.Workload + "  " + r.Params; k != last {
			fmt.Fprintf(w, "\n%s\n", k)
			last = k
		}
		fmt.Fprintf(w, "  %-14s change 1 %s %s  change 2 %s %s\n", r.Metric.Name,
			Pct(r.First.Change), VerdictText(r.First), Pct(r.Second.Change), VerdictText(r.Second))
		fmt.Fprintf(w, "  %-14s ratio of ratios %s [%s, %s]\n", "", Pct(r.Ratio.Ratio), Pct(r.Ratio.CI[0]), Pct(r.Ratio.CI[1]))
	}
}

// writeWrapped writes s after indent, folding it at spaces so that no line
// is wider than width; continuation lines keep s's own leading spaces.
func writeWrapped(w io.Writer, indent, s string, width int) {
	lead := indent + strings.Repeat(" ", len(s)-len(strings.TrimLeft(s, " ")))
	words := strings.Fields(s)
	line := lead
	for _, word := range words {
		if line != lead && len([]rune(line))+1+len([]rune(word)) > width {
			fmt.Fprintln(w, line)
			line = lead + "  "
		} else if line != lead && line != lead+"  " {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
