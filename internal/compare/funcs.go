package compare

import (
	"cmp"
	"slices"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// A FuncTable is seed mail 002's table of one kernel function timed in the
// kernel during one benchmark's runs (kdelta run --funclatency): "Per-
// synchronize_rcu() latency (in usec): median, min, max", a column per
// set, each over the calls of all the set's measured runs.
type FuncTable struct {
	Workload string
	Params   string
	Function string
	Sets     []FuncPool // per set, as Result.Names
}

// A FuncPool is a function's calls over the measured runs of one set.
type FuncPool struct {
	// Runs is the number of measured runs that timed the function, Calls
	// their calls.
	Runs, Calls int
	// Median, Min and Max are over every call, in us. Pooled is false
	// when a run kept only its summary (more than result.MaxRaw calls):
	// Median is then the median of the runs' medians.
	Median, Min, Max float64
	Pooled           bool
	// Hist is the runs' log2 histograms added up.
	Hist []result.Bucket
	// Lost is the trace events the runs' buffers could not keep; when it
	// is not 0 the figures cover only the calls kept.
	Lost int64
	// Scope and Tracer are the runs' (system or tasks; function_graph).
	Scope, Tracer string
}

// PoolFunc pools the calls of function fn over b's measured runs.
func PoolFunc(b *result.Benchmark, fn string) FuncPool {
	p := FuncPool{Pooled: true}
	var raw, medians []float64
	hist := map[[2]float64]int64{}
	for _, r := range b.Measured() {
		i := slices.IndexFunc(r.Functions, func(f result.Function) bool { return f.Name == fn })
		if i < 0 {
			continue
		}
		f := r.Functions[i]
		p.Runs++
		p.Lost += f.Lost
		p.Scope, p.Tracer = f.Scope, f.Tracer
		for _, h := range f.Hist {
			hist[[2]float64{h.Lo, h.Hi}] += h.Count
		}
		c := f.Calls
		if c.Count == 0 {
			continue
		}
		if p.Calls == 0 || c.Min < p.Min {
			p.Min = c.Min
		}
		p.Max = max(p.Max, c.Max)
		p.Calls += c.Count
		medians = append(medians, c.P50)
		if len(c.Raw) == c.Count {
			raw = append(raw, c.Raw...)
		} else {
			p.Pooled = false
		}
	}
	if p.Pooled {
		p.Median = stats.Summarize(raw).Median
	} else {
		p.Median = stats.Summarize(medians).Median
	}
	for k, n := range hist {
		p.Hist = append(p.Hist, result.Bucket{Lo: k[0], Hi: k[1], Count: n})
	}
	slices.SortFunc(p.Hist, func(a, b result.Bucket) int { return cmp.Compare(a.Lo, b.Lo) })
	return p
}

// Funcs lists the kernel functions timed in b's runs, in the order the
// runs name them.
func Funcs(b *result.Benchmark) []string {
	var out []string
	for _, r := range b.Runs {
		for _, f := range r.Functions {
			if !slices.Contains(out, f.Name) {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// funcTables makes a FuncTable for each function timed in the runs of the
// baseline's benchmark all[0] or another set's.
func funcTables(all []*result.Benchmark) []FuncTable {
	var names []string
	for _, b := range all {
		for _, fn := range Funcs(b) {
			if !slices.Contains(names, fn) {
				names = append(names, fn)
			}
		}
	}
	var out []FuncTable
	for _, fn := range names {
		ft := FuncTable{Workload: all[0].Workload, Params: result.FormatParams(all[0].Params), Function: fn}
		for _, b := range all {
			ft.Sets = append(ft.Sets, PoolFunc(b, fn))
		}
		out = append(out, ft)
	}
	return out
}
