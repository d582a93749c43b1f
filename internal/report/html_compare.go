package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// compareView is what the compare template shows: the sets, the
// environment differences first, then per benchmark its verdict rows with
// their plots, its per-operation distributions and counters, and the
// warnings last.
type compareView struct {
	Sets []setName
	// Conds are the run conditions that differ, shown before the
	// environment: they move a figure as a kernel does.
	Conds     []envDiff
	Env       []envDiff
	Workloads []workloadView
	GeoMean   []string
	Warnings  []string
	// Profiles are the profile diffs of each set against the baseline,
	// for the benchmarks profiled in both.
	Profiles []template.HTML
}

type setName struct{ Letter, Name string }

type envDiff struct {
	Letter string
	Diffs  []string
}

type workloadView struct {
	Key      string
	Summary  []string // seed mail 002's summary lines
	Rows     []rowView
	Dists    []string // chart ids of the per-operation distributions
	Counters *counterTable
}

type rowView struct {
	Metric  string
	How     string
	Sides   []sideView
	Charts  []string
	Figures bool
}

type sideView struct {
	Letter, Text, Vs string
	Warnings         []string
}

// A counterTable is a benchmark's counters per operation, a column per
// set.
type counterTable struct {
	Sets []string
	Rows []counterRow
}

type counterRow struct {
	Name  string
	Cells []string
}

// WriteCompareHTML writes the comparison r as one self-contained HTML
// page.
func WriteCompareHTML(w io.Writer, r *compare.Result, opt HTMLOptions) error {
	body, charts, err := CompareHTML(r, opt)
	if err != nil {
		return err
	}
	return writePage(w, "kdelta compare: "+strings.Join(r.Names, " vs "), body, charts, opt)
}

// CompareHTML returns the body of the comparison's page and its charts,
// for WriteCompareHTML and kdelta serve.
func CompareHTML(r *compare.Result, opt HTMLOptions) (template.HTML, []chart, error) {
	v := compareView{Warnings: r.Warnings}
	for i, n := range r.Names {
		v.Sets = append(v.Sets, setName{letter(i), n})
	}
	for i, cs := range r.Conditions {
		if len(cs) > 0 {
			v.Conds = append(v.Conds, envDiff{letter(i + 1), result.ConditionStrings(cs)})
		}
	}
	for i, env := range r.Env {
		if len(env) > 0 {
			v.Env = append(v.Env, envDiff{letter(i + 1), env})
		}
	}
	for i, g := range r.GeoMean {
		if math.IsNaN(g) {
			v.GeoMean = append(v.GeoMean, fmt.Sprintf("geomean of cost ratios %s/A over workloads: none (%s)", letter(i+1), noGeoMean))
			continue
		}
		v.GeoMean = append(v.GeoMean, fmt.Sprintf("geomean of cost ratios %s/A over workloads: %.4f (%s; below 1 is faster)", letter(i+1), g, Pct(g-1)))
	}
	var charts []chart
	add := func(c chart) string {
		c.ID = chartID("c", len(charts))
		charts = append(charts, c)
		return c.ID
	}
	at := map[string]int{}
	for _, row := range r.Rows {
		key := strings.TrimSpace(row.Workload + "  " + row.Params)
		k, ok := at[key]
		if !ok {
			k = len(v.Workloads)
			at[key] = k
			wv := workloadView{Key: key}
			benches := rowBenchmarks(r, row)
			for _, lt := range r.Latency {
				if lt.Workload == row.Workload && lt.Params == row.Params {
					wv.Summary = latencySummaryLines(lt, r.Names)
				}
			}
			for _, c := range distCharts(benches, r.Names, opt) {
				wv.Dists = append(wv.Dists, add(c))
			}
			wv.Counters = counters(benches, r.Names)
			v.Workloads = append(v.Workloads, wv)
		}
		rv := compareRow(r, row)
		if !rv.Figures {
			benches := rowBenchmarks(r, row)
			rv.Charts = append(rv.Charts, add(stripChart(r, row, opt)))
			lens := make([]int, len(row.Sides))
			for i, sd := range row.Sides {
				lens[i] = len(sd.Values)
			}
			if c, ok := orderChart(row.Metric, benches, lens, opt); ok {
				rv.Charts = append(rv.Charts, add(c))
			}
		}
		v.Workloads[k].Rows = append(v.Workloads[k].Rows, rv)
	}
	for i := 1; i < len(r.Inputs); i++ {
		if p, ok := profileDiffs(r.Inputs[0], r.Inputs[i]); ok {
			v.Profiles = append(v.Profiles, p)
		}
	}
	body, err := part("compare", v)
	return body, charts, err
}

// profileDiffs is the profile diff page's body for the benchmarks that
// both a and b profiled; false when none did.
func profileDiffs(a, b compare.Input) (template.HTML, bool) {
	ga, err := profile.FromSet(a.Name, a.Set)
	if err != nil {
		return "", false
	}
	gb, err := profile.FromSet(b.Name, b.Set)
	if err != nil {
		return "", false
	}
	ds, err := profile.Match(a.Name, b.Name, ga, gb, "")
	if err != nil {
		return "", false
	}
	body, err := ProfileDiffHTML(ds, 25)
	return body, err == nil
}

// compareRow is the text output's lines of row, as table cells.
func compareRow(r *compare.Result, row compare.Row) rowView {
	rv := rowView{Metric: metricLabel(row.Metric), How: fmt.Sprintf("%s is better; ± stddev (CV)", row.Metric.Better), Figures: len(row.Vs) > 0}
	for i := range row.Vs {
		rv.Figures = rv.Figures && row.Figures(i)
	}
	if row.FromSummaries {
		rv.How = fmt.Sprintf("%s is better; ± stddev from the summary, each summary one session", row.Metric.Better)
	}
	if rv.Figures {
		rv.How = fmt.Sprintf("%s is better; single figures", row.Metric.Better)
	}
	for i, s := range row.Sides {
		sm := s.Summary
		sv := sideView{Letter: letter(i)}
		switch {
		case rv.Figures:
			sv.Text = WithUnit(s.Values[0], row.Metric.Unit)
		case s.FromSummary:
			sv.Text = fmt.Sprintf("n=%d  %s ± %s (%.1f%%)  ( +- %.2f%% )", sm.N, Num(sm.Mean), Num(sm.Stddev), sm.CV, 100*sm.StdErr/math.Abs(sm.Mean))
		default:
			sv.Text = fmt.Sprintf("n=%d  %s ± %s (%.1f%%)  med %s  min %s  max %s", sm.N, Num(sm.Mean), Num(sm.Stddev), sm.CV, Num(sm.Median), Num(sm.Min), Num(sm.Max))
		}
		if i > 0 {
			c := row.Vs[i-1]
			switch {
			case rv.Figures:
				sv.Vs = FigureWords(c.Change, row.Metric)
			case c.Design.NoiseUnknown:
				sv.Vs = fmt.Sprintf("%s  %s", Pct(c.Change), verdictLine(c))
			default:
				sv.Vs = fmt.Sprintf("%s %s %s  %s", Pct(c.Change), Interval(c.CI), PValue(c.P), verdictLine(c))
			}
			if claim, vs := r.Claim(row, i); claim != "" {
				if vs != "" {
					claim += " vs " + vs
				}
				sv.Vs += "; the source says: " + claim
			}
			sv.Warnings = c.Warnings
		}
		rv.Sides = append(rv.Sides, sv)
	}
	return rv
}

// rowBenchmarks finds each set's benchmark of row, paired as compare
// pairs them; nil where a set lacks it.
func rowBenchmarks(r *compare.Result, row compare.Row) []*result.Benchmark {
	bs := make([]*result.Benchmark, len(r.Inputs))
	if len(r.Inputs) == 0 {
		return bs
	}
	base := r.Inputs[0].Set
	for _, b := range base.Benchmarks {
		if b.Workload == row.Workload && result.FormatParams(b.Params) == row.Params {
			bs[0] = b
		}
	}
	if bs[0] == nil {
		return bs
	}
	for i, in := range r.Inputs[1:] {
		bs[i+1], _ = compare.Pair(bs[0], len(base.Benchmarks), in.Set.Benchmarks, compare.Pairing{})
	}
	return bs
}

// stripChart is every run of every set of row in a column of its own,
// the outliers that the warnings name marked, with each set's median and
// the verdict's interval drawn on the baseline's median.
func stripChart(r *compare.Result, row compare.Row, opt HTMLOptions) chart {
	c := chart{Kind: "strip", Title: row.Metric.Name + " per run", YUnit: unitText(row.Metric.Name, row.Metric.Unit)}
	limit := max(opt.maxPoints()/max(len(row.Sides), 1), 1)
	for i, s := range row.Sides {
		c.XNames = append(c.XNames, letter(i)+": "+r.Names[i])
		c.Runs += len(s.Values)
		runs, outs := runSeries(s.Values, limit, func(k int) float64 { return float64(i) + jitter(k) })
		runs.Name, runs.Set = letter(i), i
		outs.Name, outs.Set = letter(i)+" outliers", i
		c.Series = append(c.Series, runs, outs)
		c.Shown += len(runs.X) + len(outs.X)
		if len(s.Values) > 0 || s.FromSummary {
			m := s.Summary.Median
			if s.FromSummary {
				m = s.Summary.Mean
			}
			if finite(m) {
				c.Lines = append(c.Lines, mark{Kind: "median", Set: i, X0: float64(i) - 0.4, X1: float64(i) + 0.4, Y0: m, Y1: m, Label: "median " + Num(m)})
			}
		}
	}
	base := row.Sides[0].Summary.Median
	for i, cmp := range row.Vs {
		if cmp.Design.NoiseUnknown || !finite(base, cmp.CI[0], cmp.CI[1]) {
			continue
		}
		x := float64(i+1) + 0.42
		c.Lines = append(c.Lines, mark{Kind: "interval", Set: i + 1, X0: x, X1: x, Y0: base * (1 + cmp.CI[0]), Y1: base * (1 + cmp.CI[1]),
			Label: letter(i+1) + " vs A " + Interval(cmp.CI)})
	}
	return c
}

// runSeries splits values into the runs and the outliers that the sample
// warnings name, at the x that xOf gives run k (0-based), at most limit
// points in all: an even subset of the other runs when there are more,
// every outlier kept.
func runSeries(values []float64, limit int, xOf func(k int) float64) (runs, outs series) {
	runs.Role, outs.Role = "runs", "outliers"
	isOut := map[int]bool{}
	for _, k := range stats.Outliers(values) {
		isOut[k] = true
	}
	for _, k := range stats.Outliers(values) {
		if len(outs.X) == limit {
			break
		}
		outs.X, outs.Y, outs.Run = append(outs.X, xOf(k)), append(outs.Y, values[k]), append(outs.Run, k+1)
	}
	for _, k := range stride(len(values), max(limit-len(outs.X), 0)) {
		if isOut[k] {
			continue
		}
		runs.X, runs.Y, runs.Run = append(runs.X, xOf(k)), append(runs.Y, values[k]), append(runs.Run, k+1)
	}
	return runs, outs
}

// orderChart is the runs of metric m of every set in the order they ran, on
// one time axis when the runs of every set have increasing start times,
// so that interleaving, drift and warm-up show; else by run number.
// lens are how many runs of each set the comparison took: a set whose
// runs do not give as many (it held a summary) is left out.
func orderChart(m result.Metric, benches []*result.Benchmark, lens []int, opt HTMLOptions) (chart, bool) {
	c := chart{Kind: "order", Title: m.Name + " in run order", YUnit: unitText(m.Name, m.Unit), XTime: true}
	type run struct {
		x float64
		v float64
	}
	var per [][]run
	longest := 0
	for i, b := range benches {
		var rs []run
		if b != nil {
			for _, ru := range b.Measured() {
				v, ok := ru.Values[m.Name]
				if !ok {
					continue
				}
				x := float64(ru.Start.UnixNano()) / 1e9
				if ru.Start.IsZero() || len(rs) > 0 && x <= rs[len(rs)-1].x {
					// No times, or the one time of an import: by run number.
					c.XTime = false
				}
				rs = append(rs, run{x, v})
			}
		}
		if len(rs) != lens[i] {
			// Not the runs compare compared (a summary): leave the set out.
			rs = nil
		}
		per = append(per, rs)
		longest = max(longest, len(rs))
	}
	if longest < 2 {
		return c, false
	}
	if !c.XTime {
		c.XUnit = "run"
	}
	limit := max(opt.maxPoints()/max(len(per), 1), 1)
	for i, rs := range per {
		vals := make([]float64, len(rs))
		for k, ru := range rs {
			vals[k] = ru.v
		}
		runs, outs := runSeries(vals, limit, func(k int) float64 {
			if c.XTime {
				return rs[k].x
			}
			return float64(k + 1)
		})
		runs.Name, runs.Set = letter(i), i
		outs.Name, outs.Set = letter(i)+" outliers", i
		c.Series = append(c.Series, runs, outs)
		c.Runs += len(rs)
		c.Shown += len(runs.X) + len(outs.X)
	}
	return c, true
}

// distCharts are the CDF and the histogram of the per-operation latencies
// of each set's runs, where the runs kept them, on a log axis when they
// span more than two decades.
func distCharts(benches []*result.Benchmark, names []string, opt HTMLOptions) []chart {
	var raws [][]float64
	unit, any := "", false
	for _, b := range benches {
		var raw []float64
		if b != nil {
			for _, ru := range b.Measured() {
				if ru.Latency != nil {
					raw = append(raw, ru.Latency.Raw...)
					unit = ru.Latency.Unit
				}
			}
		}
		sort.Float64s(raw)
		any = any || len(raw) > 0
		raws = append(raws, raw)
	}
	if !any {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, raw := range raws {
		if len(raw) > 0 {
			lo, hi = math.Min(lo, raw[0]), math.Max(hi, raw[len(raw)-1])
		}
	}
	logX := lo > 0 && hi/lo > 100
	cdf := chart{Kind: "cdf", Title: "per-operation latency, CDF", XUnit: unit, LogX: logX}
	hist := chart{Kind: "hist", Title: "per-operation latency, histogram", XUnit: unit, LogX: logX}
	edges := binEdges(lo, hi, 40, logX)
	for i, raw := range raws {
		if len(raw) == 0 {
			continue
		}
		// The line is an even subset of the operations; its name states
		// the exact count and percentiles of all of them.
		s := series{Name: fmt.Sprintf("%s: %s (%d ops, p50 %s, p99 %s)", letter(i), names[i], len(raw), Num(quantile(raw, 0.5)), Num(quantile(raw, 0.99))), Set: i, Role: "line"}
		for _, k := range stride(len(raw), opt.maxPoints()/max(len(raws), 1)) {
			s.X, s.Y = append(s.X, raw[k]), append(s.Y, float64(k+1)/float64(len(raw)))
		}
		s.X, s.Y = append(s.X, raw[len(raw)-1]), append(s.Y, 1)
		cdf.Series = append(cdf.Series, s)
		h := series{Name: s.Name, Set: i, Role: "line"}
		counts := make([]float64, len(edges)-1)
		for _, x := range raw {
			b := sort.SearchFloat64s(edges, x) - 1
			counts[min(max(b, 0), len(counts)-1)]++
		}
		for b, n := range counts {
			h.X, h.Y = append(h.X, edges[b]), append(h.Y, n/float64(len(raw)))
		}
		hist.Series = append(hist.Series, h)
	}
	return []chart{cdf, hist}
}

// quantile is the q-quantile of sorted values, the nearest rank.
func quantile(sorted []float64, q float64) float64 {
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// binEdges are n+1 edges from lo to hi, even or, with log, even in log.
func binEdges(lo, hi float64, n int, log bool) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	e := make([]float64, n+1)
	for i := range e {
		f := float64(i) / float64(n)
		if log {
			e[i] = lo * math.Pow(hi/lo, f)
		} else {
			e[i] = lo + (hi-lo)*f
		}
	}
	return e
}

// latencySummaryLines are latencySummary's lines.
func latencySummaryLines(lt compare.LatencyTable, names []string) []string {
	var b strings.Builder
	latencySummary(&b, lt, names)
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// counters are the per-operation counters of each set's runs side by
// side: context switches voluntary and involuntary, and every counter
// the runs recorded, each the mean over the runs of count / operations.
// nil when no run counted operations.
func counters(benches []*result.Benchmark, names []string) *counterTable {
	type acc struct{ sum, n float64 }
	per := make([]map[string]*acc, len(benches))
	seen := map[string]bool{}
	var order []string
	for i, b := range benches {
		per[i] = map[string]*acc{}
		if b == nil {
			continue
		}
		for _, ru := range b.Measured() {
			if ru.Ops <= 0 {
				continue
			}
			put := func(name string, v float64) {
				if !seen[name] {
					seen[name] = true
					order = append(order, name)
				}
				a := per[i][name]
				if a == nil {
					a = &acc{}
					per[i][name] = a
				}
				a.sum += v / ru.Ops
				a.n++
			}
			if ru.Has(result.FigVolCtxSw) {
				put("voluntary context switches", float64(ru.VolCtxSw))
			}
			if ru.Has(result.FigInvolCtxSw) {
				put("involuntary context switches", float64(ru.InvolCtxSw))
			}
			for _, cn := range ru.Counters {
				if cn.Unsupported == "" {
					put(cn.Name, cn.Value)
				}
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	t := &counterTable{}
	for i, n := range names {
		t.Sets = append(t.Sets, letter(i)+": "+n)
	}
	for _, name := range order {
		cr := counterRow{Name: name + " / op"}
		for i := range benches {
			cell := "-"
			if a := per[i][name]; a != nil && a.n > 0 {
				cell = Num(a.sum / a.n)
			}
			cr.Cells = append(cr.Cells, cell)
		}
		t.Rows = append(t.Rows, cr)
	}
	return t
}
