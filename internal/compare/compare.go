// Package compare lines up result sets — the first is the baseline — and
// gives, for every workload and metric they share, the summaries of each
// set, the relative change, its confidence interval, the p-value and the
// verdict, with the environment differences that could explain a change.
package compare

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// Options control a comparison.
type Options struct {
	Stats stats.Options // Alpha, Threshold, Test; Better comes from each metric
	// Noise gives the host's session noise of a metric of the baseline's
	// benchmark b in set (kdelta calibrate's), for the comparisons with a
	// single session on a side; nil, or an unknown SessionNoise, knows
	// none, and such comparisons claim nothing.
	Noise func(set *result.Set, b *result.Benchmark, metric string) stats.SessionNoise
	// RunsOnly judges the runs of separate sessions as independent, the
	// rule before sessions were known: bisect-run's judge, which compares
	// a measurement now with a reference of another session, keeps it
	// until it reads the host's session noise.
	RunsOnly bool
	// SessionNoise, when set (--session-noise P%), is the session noise
	// every comparison of one session a side assumes, whatever the host
	// is known for; 0 judges the runs as independent, and says so.
	SessionNoise *float64
	// Metrics picks the metrics judged (--metrics, ParseMetrics): the
	// workload's, or those and the runs' counters and rusage figures, or
	// a list.
	Metrics string
}

// An Input is one result set with the name its column gets.
type Input struct {
	Name string
	Set  *result.Set
}

// Name picks a column name for a set: its labels that differ between the
// sets being compared, else the file name.
func Names(sets []*result.Set, files []string) []string {
	names := make([]string, len(sets))
	// Labels whose values differ across the sets name the columns best
	// (kernel=6.15 vs kernel=6.16); host and source rarely do.
	keys := map[string]bool{}
	for _, s := range sets {
		for k := range s.Labels {
			keys[k] = true
		}
	}
	var differing []string
	for k := range keys {
		if k == "source" {
			continue
		}
		first := sets[0].Labels[k]
		for _, s := range sets[1:] {
			if s.Labels[k] != first {
				differing = append(differing, k)
				break
			}
		}
	}
	sort.Strings(differing)
	for i, s := range sets {
		var parts []string
		for _, k := range differing {
			if v := s.Labels[k]; v != "" {
				parts = append(parts, k+"="+v)
			}
		}
		if len(parts) > 0 {
			names[i] = strings.Join(parts, ",")
		} else {
			names[i] = strings.TrimSuffix(filepath.Base(files[i]), filepath.Ext(files[i]))
		}
	}
	// Keep names distinct.
	seen := map[string]int{}
	for i, n := range names {
		seen[n]++
		if seen[n] > 1 {
			names[i] = fmt.Sprintf("%s#%d", n, seen[n])
		}
	}
	return names
}

// Letter names the i-th set of a comparison in text and in warnings: A is
// the baseline, then B, C, ... and S27 on.
func Letter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("S%d", i+1)
}

// A Side is one set's figures for a row.
type Side struct {
	// Values are the measured runs' values, in run order; empty when the
	// set only holds a summary.
	Values  []float64
	Summary stats.Summary
	// FromSummary is set when only mean, standard error and n are known
	// (an imported perf stat -r block).
	FromSummary bool
	// Sessions are Values by session, and SessionIDs their names; a
	// set's runs without a session are its own single session.
	Sessions   [][]float64
	SessionIDs []string
}

// A Row is one workload × metric across the sets.
type Row struct {
	Workload string
	Params   string
	Metric   result.Metric
	Sides    []Side
	// Vs[i] compares Sides[i+1] with the baseline Sides[0].
	Vs []stats.Comparison
	// Welch is set when a side was a summary, so Welch's t from the summary
	// statistics decided.
	FromSummaries bool
	// Counter marks a row of the runs' counters or rusage figures
	// (--metrics all), not one of the workload's metrics; Primary the
	// row of the benchmark's primary metric (PrimaryMetric).
	Counter, Primary bool
}

// A Result is the whole comparison.
type Result struct {
	// Inputs are the sets compared, baseline first.
	Inputs []Input `json:"-"`
	Names  []string
	// Conditions lists, for each set after the baseline, its run
	// conditions that differ from the baseline's (result.DiffConditions):
	// shown first, since a change of placement or policy moves a figure
	// as much as a kernel does.
	Conditions [][]result.ConditionDiff
	// Env lists the differences of each set's environment from the
	// baseline's, performance-relevant ones first.
	Env  [][]string
	Rows []Row
	// Latency holds, per latency workload, every set's per-run table.
	Latency []LatencyTable
	// Functions hold, per benchmark and kernel function timed during its
	// runs (--funclatency), every set's calls.
	Functions []FuncTable
	// GeoMean[i] is the geometric mean over workloads of the cost ratio of
	// set i+1 to the baseline (below 1: faster), taken on each benchmark's
	// primary metric (its first, a time or a rate; an imported perf stat
	// block's elapsed time; never a count such as context switches),
	// oriented so that lower is better.
	GeoMean  []float64
	Warnings []string
}

// A LatencyTable is seed mail 002's table for one workload, per set.
type LatencyTable struct {
	Workload string
	Params   string
	Unit     string
	Runs     [][]*result.Latency // per set, per run
	// Mean holds the verdicts on the runs' mean latency, each other set
	// against the baseline (the row of the benchmark's mean metric), so
	// that the summary line never says more than the verdict; nil when
	// the benchmark has no mean metric.
	Mean []stats.Comparison
}

// Files compares the sets that load reads from files, the first the
// baseline, each named as Names names it.
func Files(files []string, load func(string) (*result.Set, error), opt Options) (*Result, error) {
	sets := make([]*result.Set, len(files))
	for i, f := range files {
		s, err := load(f)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	names := Names(sets, files)
	ins := make([]Input, len(sets))
	for i := range sets {
		ins[i] = Input{Name: names[i], Set: sets[i]}
	}
	return Compare(ins, opt)
}

// Compare compares the sets in ins; ins[0] is the baseline.
func Compare(ins []Input, opt Options) (*Result, error) {
	if len(ins) < 2 {
		return nil, fmt.Errorf("compare needs at least two result sets, got %d", len(ins))
	}
	if err := opt.Stats.Validate(); err != nil {
		return nil, err
	}
	r := &Result{Inputs: ins}
	sets := make([]*result.Set, len(ins))
	for i, in := range ins {
		r.Names = append(r.Names, in.Name)
		sets[i] = in.Set
	}
	sel, err := ParseMetrics(opt.Metrics)
	if err != nil {
		return nil, err
	}
	if missing, have := sel.unknown(sets); len(missing) > 0 {
		return nil, fmt.Errorf("--metrics: no metric %s in the sets compared (they have: %s)", strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	for _, in := range ins[1:] {
		r.Conditions = append(r.Conditions, result.DiffConditions(ins[0].Set.Conditions, in.Set.Conditions))
		r.Env = append(r.Env, EnvDiff(ins[0].Set.Env, in.Set.Env))
	}
	base := ins[0].Set
	matched := 0
	logSum := make([]float64, len(ins)-1)
	logN := make([]int, len(ins)-1)
	for _, bb := range base.Benchmarks {
		others := make([]*result.Benchmark, len(ins)-1)
		found := true
		for i, in := range ins[1:] {
			others[i] = match(bb, base, in.Set)
			if others[i] == nil {
				found = false
			}
		}
		if !found {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: not in every set; left out", bb.Key()))
			continue
		}
		matched++
		all, metrics := sel.metrics(append([]*result.Benchmark{bb}, others...))
		primary := PrimaryMetric(bb)
		first := len(r.Rows)
		for _, m := range metrics {
			row, ok := compareMetric(all, sets, m, opt)
			if !ok {
				continue
			}
			row.Counter = !slices.ContainsFunc(bb.Metrics, func(o result.Metric) bool { return o.Name == m.Name })
			row.Primary = m.Name == primary
			r.Rows = append(r.Rows, row)
			if m.Name == primary {
				for i, c := range row.Vs {
					// A cost ratio: above 1 is for the worse, so a
					// metric whose rise is for the better is inverted.
					ratio := 1 + c.Change
					if !m.Worse(1) && ratio > 0 {
						ratio = 1 / ratio
					}
					if ratio > 0 && !math.IsInf(ratio, 0) && !math.IsNaN(ratio) {
						logSum[i] += math.Log(ratio)
						logN[i]++
					}
				}
			}
		}
		if lt, ok := latencyTable(all); ok {
			for _, row := range r.Rows[first:] {
				if slices.Contains([]string{"mean", "avg", "average"}, row.Metric.Name) {
					lt.Mean = row.Vs
					break
				}
			}
			r.Latency = append(r.Latency, lt)
		}
		r.Functions = append(r.Functions, funcTables(all)...)
	}
	if matched == 0 {
		return nil, fmt.Errorf("the sets share no workload with the same parameters")
	}
	for i := range logSum {
		g := math.NaN()
		if logN[i] > 0 {
			g = math.Exp(logSum[i] / float64(logN[i]))
		}
		r.GeoMean = append(r.GeoMean, g)
	}
	r.Warnings = append(r.Warnings, sameSets(ins)...)
	r.Warnings = append(r.Warnings, setWarnings(ins)...)
	r.Warnings = append(r.Warnings, r.Unmeasured()...)
	for _, in := range ins[1:] {
		for _, b := range in.Set.Benchmarks {
			if match(b, in.Set, base) == nil {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s: only in %s; left out", b.Key(), in.Name))
			}
		}
	}
	return r, nil
}

// A Pairing says how far Pair may look beyond a benchmark of the same
// workload and parameters. The zero Pairing is kdelta compare's, where
// every set is a peer of the baseline.
type Pairing struct {
	// AnyParams pairs a benchmark with the only one of its workload in
	// the other set whatever their parameters, as a benchmark measured
	// now is judged against a reference (bisect-run). Without it, a
	// workload's parameters may differ only when each set holds that one
	// benchmark.
	AnyParams bool
	// Foreign, when set, tells the workloads that are none of kdelta's
	// (imported from another tool): a single benchmark then pairs with
	// the single benchmark of the other set when that one is foreign, an
	// imported stress-ng result against a command workload that runs
	// stress-ng.
	Foreign func(workload string) bool
}

// Pair finds the counterpart among in of b, one of n benchmarks of its
// set: the benchmark with the same workload and parameters; else the only
// one of b's workload (under p.AnyParams, or when both sets hold one
// benchmark each); else, under p.Foreign, when both hold one benchmark
// each and in's is foreign, that one. It is the one pairing rule of kdelta:
// compare, bisect-run and the sweeps pair through it. The note says which
// fallback matched, for callers that tell the user; it is "" for a match
// by workload and parameters, and the benchmark nil when nothing matches.
func Pair(b *result.Benchmark, n int, in []*result.Benchmark, p Pairing) (*result.Benchmark, string) {
	var same []*result.Benchmark
	for _, o := range in {
		if o.Key() == b.Key() {
			return o, ""
		}
		if o.Workload == b.Workload {
			same = append(same, o)
		}
	}
	single := n == 1 && len(in) == 1
	switch {
	case len(same) == 1 && (p.AnyParams || single):
		return same[0], fmt.Sprintf("%s compared with %s (parameters differ)", b.Key(), same[0].Key())
	case len(same) == 0 && single && p.Foreign != nil && p.Foreign(in[0].Workload):
		return in[0], fmt.Sprintf("%s compared with %s, the only benchmark of the reference", b.Key(), in[0].Key())
	}
	return nil, ""
}

// match is Pair under kdelta compare's Pairing, from set from to set.
func match(b *result.Benchmark, from, set *result.Set) *result.Benchmark {
	o, _ := Pair(b, len(from.Benchmarks), set.Benchmarks, Pairing{})
	return o
}

// Metric compares the metric named name of b with that of base, the
// baseline, as kdelta compare compares one row of two sets: under base's
// definition of the metric (its direction), from the runs' values or,
// when a side holds only a summary, with Welch's t from the summaries.
// Warnings call base A and b B. It fails when base does not define the
// metric or a side has neither values nor a summary of it.
func Metric(base, b *result.Benchmark, name string, opt Options) (stats.Comparison, error) {
	return MetricIn(nil, base, nil, b, name, opt)
}

// MetricIn is Metric with the sets base and b are of, so that a
// comparison across sessions with one session on a side finds the host's
// session noise for them (Options.Noise) as kdelta compare does; with a
// nil set it knows none.
func MetricIn(baseSet *result.Set, base *result.Benchmark, set *result.Set, b *result.Benchmark, name string, opt Options) (stats.Comparison, error) {
	var sets []*result.Set
	if baseSet != nil && set != nil {
		sets = []*result.Set{baseSet, set}
	}
	for _, m := range base.Metrics {
		if m.Name != name {
			continue
		}
		if row, ok := compareMetric([]*result.Benchmark{base, b}, sets, m, opt); ok {
			return row.Vs[0], nil
		}
		break
	}
	return stats.Comparison{}, fmt.Errorf("no values of %s on both sides", name)
}

// side is b's figures of metric, the i-th side of a row.
func side(b *result.Benchmark, i int, metric string) (Side, bool) {
	if v := b.Values(metric); len(v) > 0 {
		ss, ids := b.SessionValues(metric)
		for k, id := range ids {
			if id == "" {
				// The set's own session: no other side's.
				ids[k] = fmt.Sprintf("\x00side %d", i)
			}
		}
		return Side{Values: v, Summary: stats.Summarize(v), Sessions: ss, SessionIDs: ids}, true
	}
	if s, ok := b.Summaries[metric]; ok && s.N > 0 {
		sd := s.StdErr * math.Sqrt(float64(s.N))
		return Side{FromSummary: true, Summary: stats.Summary{
			N: s.N, Mean: s.Mean, Stddev: sd, StdErr: s.StdErr, CV: cv(sd, s.Mean),
			Median: math.NaN(), Min: math.NaN(), Max: math.NaN(),
		}}, true
	}
	return Side{}, false
}

func cv(sd, mean float64) float64 {
	if mean == 0 {
		return math.NaN()
	}
	return 100 * sd / math.Abs(mean)
}

// compareMetric compares metric m of the benchmarks all, the baseline
// first, from sets (nil when unknown: no session noise is looked up).
//
// Which test judges a pair is the design of its sessions: sides measured
// in the same sessions (kdelta ab's interleaved cells) are compared run by
// run, the session's state falling on both alike; sides of separate
// sessions over their sessions (stats.CompareSessions), with the host's
// session noise for a side of one session — the noise recorded for the
// host and conditions of both sides, unknown when theirs differ; summaries,
// each one session of its own, likewise (stats.CompareSummarySessions).
func compareMetric(all []*result.Benchmark, sets []*result.Set, m result.Metric, opt Options) (Row, bool) {
	row := Row{Workload: all[0].Workload, Params: result.FormatParams(all[0].Params), Metric: m}
	for i, b := range all {
		s, ok := side(b, i, m.Name)
		if !ok {
			return Row{}, false
		}
		row.Sides = append(row.Sides, s)
		row.FromSummaries = row.FromSummaries || s.FromSummary
	}
	so := opt.Stats
	so.Better = m.Better
	noiseOf := func(i int) stats.SessionNoise {
		if opt.Noise == nil || sets == nil || opt.RunsOnly {
			return stats.SessionNoise{}
		}
		return opt.Noise(sets[i], all[i], m.Name)
	}
	a := row.Sides[0]
	for i, b := range row.Sides[1:] {
		// Warnings name the sample they are about by the set's letter.
		so.Names = [2]string{Letter(0), Letter(i + 1)}
		// The host's noise is looked up (a store read) only where a
		// design across sessions needs it, not for sides that share
		// their sessions.
		noiseFor := func() stats.SessionNoise {
			var measured stats.SessionNoise
			if opt.SessionNoise == nil {
				// Calibrated for one side's conditions only when the
				// sides' noises differ: then none is known.
				if base := noiseOf(0); noiseOf(i+1) == base {
					measured = base
				}
			}
			return opt.sessionNoise(measured, sets, i+1)
		}
		// --session-noise 0: the runs of both sides as independent,
		// judged as runs of one session are (benchstat's model), and
		// said so in the design.
		independent := !opt.RunsOnly && opt.SessionNoise != nil && *opt.SessionNoise == 0
		if figures(a, b) {
			c := compareFigures(a, b, so)
			c.Emulated = sets != nil && (Emulated(sets[0]) || Emulated(sets[i+1]))
			row.Vs = append(row.Vs, c)
			continue
		}
		var c stats.Comparison
		switch {
		case row.FromSummaries && (opt.RunsOnly || independent):
			c = stats.CompareSummaries(a.Summary, b.Summary, so)
		case row.FromSummaries:
			c = stats.CompareSummarySessions(a.Summary, b.Summary, noiseFor(), so)
		case opt.RunsOnly || independent:
			c = stats.Compare(a.Values, b.Values, so)
		case sameSessions(a.SessionIDs, b.SessionIDs):
			c = stats.Compare(a.Values, b.Values, so)
			c.Design = stats.Design{Shared: true, Sessions: [2]int{len(a.Sessions), len(b.Sessions)}, Runs: [2]int{len(a.Values), len(b.Values)}}
		default:
			c = stats.CompareSessions(a.Sessions, b.Sessions, noiseFor(), so)
		}
		if independent && !c.Design.Shared {
			c.Design = stats.Design{Sessions: [2]int{max(len(a.Sessions), 1), max(len(b.Sessions), 1)}, Runs: [2]int{a.Summary.N, b.Summary.N}, Noise: noiseFor()}
		}
		c.Emulated = sets != nil && (Emulated(sets[0]) || Emulated(sets[i+1]))
		row.Vs = append(row.Vs, c)
	}
	return row, true
}

// sameSessions tells whether two sides were measured in the same sessions.
func sameSessions(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[string]bool{}
	for _, id := range a {
		in[id] = true
	}
	for _, id := range b {
		if !in[id] {
			return false
		}
	}
	return true
}

func latencyTable(all []*result.Benchmark) (LatencyTable, bool) {
	lt := LatencyTable{Workload: all[0].Workload, Params: result.FormatParams(all[0].Params)}
	any := false
	for _, b := range all {
		var runs []*result.Latency
		for _, r := range b.Measured() {
			if r.Latency != nil {
				runs = append(runs, r.Latency)
				if lt.Unit == "" {
					lt.Unit = r.Latency.Unit
				}
				any = true
			}
		}
		lt.Runs = append(lt.Runs, runs)
	}
	return lt, any
}

// A ChangeRow puts the change of one pair of sets beside the change of
// another for the same workload and metric.
type ChangeRow struct {
	Workload, Params string
	Metric           result.Metric
	First, Second    stats.Comparison
	Ratio            stats.RatioOfRatios
}

// Changes pairs the rows of first and second (each a two-set comparison)
// and gives the ratio of their changes: `kdelta compare A B --and C D`.
func Changes(first, second *Result, alpha float64) []ChangeRow {
	var out []ChangeRow
	for _, a := range first.Rows {
		for _, b := range second.Rows {
			if a.Workload != b.Workload || a.Metric.Name != b.Metric.Name {
				continue
			}
			if a.Params != b.Params && !(len(first.Rows) > 0 && singleWorkload(first) && singleWorkload(second)) {
				continue
			}
			out = append(out, ChangeRow{
				Workload: a.Workload, Params: a.Params, Metric: a.Metric,
				First: a.Vs[0], Second: b.Vs[0],
				Ratio: stats.CompareChanges(a.Vs[0], b.Vs[0], alpha),
			})
		}
	}
	return out
}

func singleWorkload(r *Result) bool {
	for _, row := range r.Rows {
		if row.Workload != r.Rows[0].Workload || row.Params != r.Rows[0].Params {
			return false
		}
	}
	return true
}

// emulatedWarning starts the warning kdelta vm records in the sets of
// boots under TCG (vm.TCGWarning, which a test of package vm ties to it).
const emulatedWarning = "timings emulated under TCG"

// Emulated tells whether set was measured under TCG emulation: its
// timings are qemu's, not the hardware's.
func Emulated(set *result.Set) bool {
	return set != nil && slices.ContainsFunc(set.Warnings, func(w string) bool { return strings.HasPrefix(w, emulatedWarning) })
}

// setWarnings carries the sets' own warnings into the comparison (timings
// emulated under TCG, a loaded or virtual machine), once each, naming the
// sets that carry them.
func setWarnings(ins []Input) []string {
	var order []string
	who := map[string][]string{}
	for _, in := range ins {
		for _, w := range in.Set.Warnings {
			if _, seen := who[w]; !seen {
				order = append(order, w)
			}
			who[w] = append(who[w], in.Name)
		}
	}
	out := make([]string, len(order))
	for i, w := range order {
		out[i] = strings.Join(who[w], ", ") + ": " + w
	}
	return out
}

// sameSets warns, once per pair, of sets that are the same result set:
// the same id (a file given twice, or a file and its store row), or the
// same benchmarks with the same values (a file imported twice, whose ids
// differ by the second of the import). Such a comparison shows no change
// by construction, which is easy to take for a finding.
func sameSets(ins []Input) []string {
	var out []string
	for j := 1; j < len(ins); j++ {
		for i := 0; i < j; i++ {
			a, b := ins[i].Set, ins[j].Set
			how := ""
			switch {
			case a == b || a.ID != "" && a.ID == b.ID:
				how = "id " + a.ID
			case sameResults(a, b):
				how = "the same benchmarks and values"
			default:
				continue
			}
			out = append(out, fmt.Sprintf("%s and %s are the same result set (%s): the comparison cannot show a change", ins[i].Name, ins[j].Name, how))
		}
	}
	return out
}

// sameResults tells whether a and b hold the same benchmarks with the same
// runs, values and summaries, whatever their ids, times and labels. Sets
// without a single value are never the same by content.
func sameResults(a, b *result.Set) bool {
	if len(a.Benchmarks) != len(b.Benchmarks) {
		return false
	}
	values := 0
	for k, ba := range a.Benchmarks {
		bb := b.Benchmarks[k]
		if ba.Key() != bb.Key() || len(ba.Runs) != len(bb.Runs) || !reflect.DeepEqual(ba.Summaries, bb.Summaries) {
			return false
		}
		values += len(ba.Summaries)
		for r, ra := range ba.Runs {
			rb := bb.Runs[r]
			if ra.Status != rb.Status || ra.Warmup != rb.Warmup || !reflect.DeepEqual(ra.Values, rb.Values) {
				return false
			}
			values += len(ra.Values)
		}
	}
	return values > 0
}
