package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// ShowOptions control Show.
type ShowOptions struct {
	// Runs prints every run's values, not only the summary.
	Runs bool
}

// Show prints a result set the way `perf stat --repeat` users paste it:
// per benchmark and metric n, mean ± stddev (CV), median, min and max; the
// context switches and CPU time of the runs; for latency workloads the
// per-run table of seed mail 002 (Run | Mean | Min | Max).
func Show(w io.Writer, s *result.Set, opt ShowOptions) {
	fmt.Fprintf(w, "kdelta result %s%s\n", s.ID, labelSuffix(s.Labels))
	if e := s.Env; e != nil {
		fmt.Fprintf(w, "kernel %s on %s (CPUs %s, %s); preemption %s\n", e.Kernel.Release, e.Hostname,
			e.CPU.Online, e.CPU.Model, e.Preempt.Mode)
		if e.Shield != nil {
			fmt.Fprintf(w, "CPU shield %s\n", e.Shield)
		}
	}
	if !s.Complete {
		fmt.Fprintln(w, "incomplete: the session was interrupted or is still running")
	}
	scope := counterScope(s.Command)
	for _, b := range s.Benchmarks {
		fmt.Fprintln(w)
		showBenchmark(w, b, scope, opt)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

func labelSuffix(l map[string]string) string {
	if len(l) == 0 {
		return ""
	}
	return " (" + labelList(l) + ")"
}

func showBenchmark(w io.Writer, b *result.Benchmark, scope string, opt ShowOptions) {
	fmt.Fprintf(w, "%s  %s\n", b.Workload, result.FormatParams(b.Params))
	if b.Skipped != "" {
		fmt.Fprintf(w, "  skipped: %s\n", b.Skipped)
		return
	}
	measured := b.Measured()
	for _, r := range b.Runs {
		if r.Status != result.StatusOK {
			fmt.Fprintf(w, "  %s %s: %s\n", runLabel(r), r.Status, r.Reason)
		}
	}
	if len(measured) == 0 {
		if !showSummaries(w, b, 14) {
			fmt.Fprintln(w, "  no measured runs")
		}
		return
	}
	// The name column fits the longest name (FUNC.p50 of --funclatency
	// runs to 30 characters and more).
	wide := 14
	for _, m := range b.Metrics {
		if len(b.Values(m.Name)) > 0 {
			wide = max(wide, len(m.Name))
		}
	}
	fmt.Fprintf(w, "  %-*s %3s %24s %8s %12s %12s %12s\n", wide, "metric", "n", "mean ± stddev", "(CV)", "median", "min", "max")
	if len(b.Metrics) > 0 {
		// Runs of several sessions (the boots of vm --boots) are
		// compared over their sessions: say how many there are.
		if ss, _ := b.SessionValues(b.Metrics[0].Name); len(ss) > 1 {
			fmt.Fprintf(w, "  (runs in %d sessions)\n", len(ss))
		}
	}
	for _, m := range b.Metrics {
		xs := b.Values(m.Name)
		if len(xs) == 0 {
			continue
		}
		sm := stats.Summarize(xs)
		unit := ""
		if m.Unit != "" && m.Unit != m.Name {
			unit = " " + m.Unit
		}
		fmt.Fprintf(w, "  %-*s %3d %24s %8s %12s %12s %12s\n", wide, m.Name, sm.N,
			Num(sm.Mean)+" ± "+Num(sm.Stddev)+unit, fmt.Sprintf("(%.1f%%)", sm.CV),
			Num(sm.Median), Num(sm.Min), Num(sm.Max))
	}
	showClaims(w, measured)
	showRusage(w, measured)
	var warm []*result.Run
	for _, r := range b.Runs {
		if r.Warmup && r.Status == result.StatusOK {
			warm = append(warm, r)
		}
	}
	showCounters(w, measured, warm, scope)
	showMonitors(w, measured)
	showSchedstat(w, measured, true)
	if hasLatency(measured) {
		showLatencyRuns(w, measured)
	}
	showFuncs(w, b, measured)
	showPerSecond(w, measured)
	if opt.Runs {
		showRuns(w, b, measured)
	}
}

func runLabel(r *result.Run) string {
	if r.Warmup {
		return fmt.Sprintf("warm-up %d", r.Index+1)
	}
	return fmt.Sprintf("run %d", r.Index+1)
}

// showRusage prints what wait4 reported of the measured child, averaged
// over the runs, and per operation when the workload counted its
// operations. Each figure is the mean over the runs that have it; a figure
// no run has (an import of a table) is not printed at all.
func showRusage(w io.Writer, rs []*result.Run) {
	var vol, invol, ops, nCtx float64
	for _, r := range rs {
		if r.Has(result.FigCtxSw) {
			vol += float64(r.VolCtxSw)
			invol += float64(r.InvolCtxSw)
			ops += r.Ops
			nCtx++
		}
	}
	var lines []string
	if nCtx > 0 {
		lines = append(lines, fmt.Sprintf("context switches per run: %s (%s voluntary, %s involuntary)",
			Num((vol+invol)/nCtx), Num(vol/nCtx), Num(invol/nCtx)))
		if ops > 0 {
			lines = append(lines, fmt.Sprintf("context switches per op:  %s (%s ops per run)", Num((vol+invol)/ops), Num(ops/nCtx)))
		}
	}
	var times []string
	for _, t := range runTimes {
		if v, ok := meanFigure(rs, t.fig, t.get); ok {
			times = append(times, fmt.Sprintf("%s %s s", t.name, Num(v)))
		}
	}
	if len(times) > 0 {
		lines = append(lines, "time per run: "+strings.Join(times, ", "))
	}
	if len(lines) == 0 {
		return
	}
	// rusage counts the child's own context switches; perf's counter of
	// the same name may count every task on the CPUs (-a): each figure
	// goes under a heading that says whose it is.
	fmt.Fprintln(w, "  the measured child (rusage):")
	for _, l := range lines {
		fmt.Fprintln(w, "    "+l)
	}
}

// runTimes are the times of a run, as perf stat names them.
var runTimes = []struct {
	name string
	fig  result.Figures
	get  func(*result.Run) float64
}{
	{"wall", result.FigWall, func(r *result.Run) float64 { return r.WallSec }},
	{"user", result.FigUser, func(r *result.Run) float64 { return r.UserSec }},
	{"sys", result.FigSys, func(r *result.Run) float64 { return r.SysSec }},
}

// meanFigure is the mean of a figure over the runs that have it; ok is
// false when none has it.
func meanFigure(rs []*result.Run, f result.Figures, get func(*result.Run) float64) (mean float64, ok bool) {
	var sum, n float64
	for _, r := range rs {
		if r.Has(f) {
			sum += get(r)
			n++
		}
	}
	return sum / n, n > 0
}

func hasLatency(rs []*result.Run) bool {
	for _, r := range rs {
		if r.Latency != nil && r.Latency.Count > 0 {
			return true
		}
	}
	return false
}

// showLatencyRuns prints seed mail 002's table: one row per run.
func showLatencyRuns(w io.Writer, rs []*result.Run) {
	unit := ""
	for _, r := range rs {
		if r.Latency != nil {
			unit = r.Latency.Unit
			break
		}
	}
	cell := func(v float64) string { return LatNum(v, unit) }
	rows := [][]string{{"Run", "Mean", "Min", "Max"}}
	for _, r := range rs {
		if r.Latency == nil {
			continue
		}
		rows = append(rows, []string{fmt.Sprint(r.Index + 1), cell(r.Latency.Mean), cell(r.Latency.Min), cell(r.Latency.Max)})
	}
	writeMarkdown(w, "  ", rows)
}

func showRuns(w io.Writer, b *result.Benchmark, rs []*result.Run) {
	header := []string{"Run"}
	for _, m := range b.Metrics {
		header = append(header, m.Name)
	}
	// The rusage columns are there when a run has their figure; a run
	// without it shows "-", as a missing value does.
	var ctx, wall bool
	for _, r := range rs {
		ctx = ctx || r.Has(result.FigCtxSw)
		wall = wall || r.Has(result.FigWall)
	}
	if ctx {
		header = append(header, "vol cs", "invol cs")
	}
	if wall {
		header = append(header, "wall s")
	}
	rows := [][]string{header}
	for _, r := range rs {
		row := []string{fmt.Sprint(r.Index + 1)}
		for _, m := range b.Metrics {
			if v, ok := r.Values[m.Name]; ok {
				row = append(row, Num(v))
			} else {
				row = append(row, "-")
			}
		}
		switch {
		case !ctx:
		case r.Has(result.FigCtxSw):
			row = append(row, fmt.Sprint(r.VolCtxSw), fmt.Sprint(r.InvolCtxSw))
		default:
			row = append(row, "-", "-")
		}
		switch {
		case !wall:
		case r.Has(result.FigWall):
			row = append(row, Num(r.WallSec))
		default:
			row = append(row, "-")
		}
		rows = append(rows, row)
	}
	writeMarkdown(w, "  ", rows)
}

// writeMarkdown writes rows as a Markdown table with right-aligned cells,
// the shape users paste into mail.
func writeMarkdown(w io.Writer, indent string, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			if len(c) > width[i] {
				width[i] = len(c)
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString(indent + "|")
		for i, c := range cells {
			fmt.Fprintf(&b, " %*s |", width[i], c)
		}
		fmt.Fprintln(w, b.String())
	}
	line(rows[0])
	var b strings.Builder
	b.WriteString(indent + "|")
	for _, wd := range width {
		b.WriteString(strings.Repeat("-", wd+2) + "|")
	}
	fmt.Fprintln(w, b.String())
	for _, r := range rows[1:] {
		line(r)
	}
}

// counterScope says, for the heading of the perf counters, what the
// counters of a set made by cmd counted: every task on the run's CPUs
// with -a (which run, stat, ab and vm's guest command take), else the
// measured child and the tasks it created; nothing when the command is
// not known (an import). The runs do not record it; the command does.
func counterScope(cmd []string) string {
	if len(cmd) < 2 {
		return ""
	}
	for _, a := range cmd[1:] {
		if a == "--" && cmd[1] == "stat" {
			// What follows is the measured command's own.
			break
		}
		if a == "-a" || a == "--all-cpus" || a == "--all-cpus=true" {
			return ", system-wide (-a: every task on the run's CPUs)"
		}
	}
	return " of the measured child and the tasks it created"
}

// showCounters prints each perf event's mean per run and per operation,
// and why an event was not counted. Events counted only on warm-up runs
// (probes such as the syscall tracepoint, which would slow measured runs)
// are taken from those and marked. scope says whose events they are, so
// that perf's context-switches is not read as the child's rusage.
func showCounters(w io.Writer, rs, warm []*result.Run, scope string) {
	type acc struct {
		sum, ops     float64
		n            int
		unit, reason string
		scaled       bool
		runPct       float64
	}
	var order []string
	by := map[string]*acc{}
	fromWarm := map[string]bool{}
	measuredHas := map[string]bool{}
	for _, r := range rs {
		for _, c := range r.Counters {
			measuredHas[c.Name] = true
		}
	}
	all := append(append([]*result.Run(nil), rs...), warm...)
	for _, r := range all {
		for _, c := range r.Counters {
			if r.Warmup && measuredHas[c.Name] {
				continue
			}
			if r.Warmup {
				fromWarm[c.Name] = true
			}
			a := by[c.Name]
			if a == nil {
				a = &acc{unit: c.Unit}
				by[c.Name] = a
				order = append(order, c.Name)
			}
			if c.Unsupported != "" {
				a.reason = c.Unsupported
				continue
			}
			a.sum += c.Value
			a.ops += r.Ops
			a.n++
			if c.Scaled() {
				a.scaled = true
				a.runPct = 100 * float64(c.RunningNs) / float64(c.EnabledNs)
			}
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(w, "  perf counters%s, mean per run and per op:\n", scope)
	for _, name := range order {
		a := by[name]
		if a.n == 0 {
			fmt.Fprintf(w, "    %-24s %s\n", name, a.reason)
			continue
		}
		mean := a.sum / float64(a.n)
		val, unit := Num(mean), a.unit
		if unit == "ns" {
			// perf prints clocks in msec.
			val, unit = Num(mean/1e6), "msec"
		}
		line := fmt.Sprintf("    %-24s %14s %-5s", name, val, unit)
		if a.ops > 0 {
			line += fmt.Sprintf(" %12s %s/op", Num(a.sum/a.ops), a.unit)
		}
		if a.scaled {
			line += fmt.Sprintf("  (scaled, counted %.0f%%)", a.runPct)
		}
		if fromWarm[name] {
			line += "  (warm-up runs)"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// showMonitors prints the system-wide deltas that explain a run: context
// switches and interrupts from /proc/stat, RCU and scheduler softirqs, and
// why a monitor was not available.
func showMonitors(w io.Writer, rs []*result.Run) {
	keys := []struct{ monitor, key, label string }{
		{"stat", "ctxt", "ctxt"},
		{"stat", "intr", "intr"},
		{"softirqs", "softirq.RCU", "RCU softirqs"},
		{"softirqs", "softirq.SCHED", "SCHED softirqs"},
	}
	sums := map[string]float64{}
	counts := map[string]int{}
	unavailable := map[string]string{}
	var names []string
	for _, r := range rs {
		for _, m := range r.Monitors {
			id := m.Name + m.Window
			if _, seen := counts[id]; !seen {
				names = append(names, id)
				counts[id] = 0
			}
			if m.Unavailable != "" {
				unavailable[id] = m.Unavailable
				continue
			}
			counts[id]++
			for k, v := range m.Values {
				sums[id+"/"+k] += v
			}
		}
	}
	if len(names) == 0 {
		return
	}
	var parts []string
	for _, k := range keys {
		if n := counts[k.monitor]; n > 0 {
			if v, ok := sums[k.monitor+"/"+k.key]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", Num(v/float64(n)), k.label))
			}
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  system per run (/proc, all CPUs): %s\n", strings.Join(parts, ", "))
	}
	for _, id := range names {
		if reason, ok := unavailable[id]; ok && counts[id] == 0 {
			fmt.Fprintf(w, "  monitor %s: %s\n", id, reason)
		}
	}
}
