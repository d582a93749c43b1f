package job

import (
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// groups lists the cells by knob point, in cell order: the cells of one
// group are the variants at that point, the first being the baseline.
func groups(cells []Cell) [][]int {
	var out [][]int
	at := map[string]int{}
	for i, c := range cells {
		var k []string
		for _, a := range c.Point {
			k = append(k, a.Key+"="+a.Value)
		}
		key := strings.Join(k, ",")
		g, ok := at[key]
		if !ok {
			g = len(out)
			at[key] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], i)
	}
	return out
}

// versusFirst asks, of set, a variant at a knob point, the questions
// against base, the point's first variant (compare.VersusFirst): on each
// benchmark's first metric, as kdelta compare pairs and compares them
// under opt. It returns them by the benchmark's key, those compared only.
func versusFirst(base, set *result.Set, opt compare.Options) map[string]compare.Question {
	out := map[string]compare.Question{}
	for _, q := range compare.VersusFirst([]*result.Set{base, set}, opt, compare.Asking{}) {
		if q.Comparison.A.N > 0 {
			out[q.Key] = q
		}
	}
	return out
}

// A Verdict is one variant against the first at its knob point, on one
// benchmark's first metric.
type Verdict struct {
	Cell, Baseline string
	Benchmark      string
	Metric         string
	Comparison     stats.Comparison
	// Open is the question's (compare.Question.Open): more rounds may
	// still settle it, so --until-conclusive waits on it.
	Open bool
}

// Verdicts compares, at each knob point, each variant with the first on
// each benchmark's first metric, under opt (the host's session noise in
// opt.Noise).
func Verdicts(cells []Cell, sets []*result.Set, opt compare.Options) []Verdict {
	var out []Verdict
	for _, g := range groups(cells) {
		base := sets[g[0]]
		for _, i := range g[1:] {
			qs := versusFirst(base, sets[i], opt)
			for _, b := range base.Benchmarks {
				if q, ok := qs[b.Key()]; ok {
					out = append(out, Verdict{Cell: cells[i].Name, Baseline: cells[g[0]].Name, Benchmark: b.Key(), Metric: q.Metric, Comparison: q.Comparison, Open: q.Open()})
				}
			}
		}
	}
	return out
}

// A Sweep is the table of one workload's first metric against the values
// a job sweeps (kdelta ab --matrix): a row per benchmark (parameter point)
// and knob point, a column per variant.
type Sweep struct {
	Workload string
	Metric   result.Metric
	// Axes head the columns of the swept values: knob keys and parameter
	// names.
	Axes []string
	// Variants name the variant columns, the baseline first; an empty
	// name (a job without variants) is shown as "median".
	Variants []string
	Rows     []SweepRow
}

// A SweepRow is one benchmark at one knob point.
type SweepRow struct {
	// Values are the row's values of the Axes; "" for a benchmark that
	// lacks the parameter.
	Values []string
	// Benchmarks are each variant's benchmark, in Variants order.
	Benchmarks []*result.Benchmark
	// Vs compare each variant after the first with the first; nil where
	// the two could not be compared.
	Vs []*stats.Comparison
}

// SweepTables makes the tables of a matrix (report.WriteSweep writes them): per workload,
// its first metric against the swept values, one row per benchmark
// (parameter point) and knob point, one column per variant, and, for each
// variant after the first, its comparison with the first.
func SweepTables(cells []Cell, sets []*result.Set, axes []Axis, opt compare.Options) []Sweep {
	if len(sets) == 0 {
		return nil
	}
	gs := groups(cells)
	var variants []string
	for _, i := range gs[0] {
		variants = append(variants, cells[i].Variant)
	}
	var workloads []string
	seen := map[string]bool{}
	for _, b := range sets[0].Benchmarks {
		if !seen[b.Workload] {
			seen[b.Workload] = true
			workloads = append(workloads, b.Workload)
		}
	}
	// Each variant's questions against its point's first, asked once.
	asked := make([]map[string]compare.Question, len(sets))
	for _, g := range gs {
		for _, i := range g[1:] {
			asked[i] = versusFirst(sets[g[0]], sets[i], opt)
		}
	}
	var out []Sweep
	for _, wl := range workloads {
		var bis []int
		for bi, b := range sets[0].Benchmarks {
			if b.Workload == wl {
				bis = append(bis, bi)
			}
		}
		first := sets[0].Benchmarks[bis[0]]
		if len(first.Metrics) == 0 {
			continue
		}
		sw := Sweep{Workload: wl, Metric: first.Metrics[0], Variants: variants}
		var cols []Axis
		for _, a := range axes {
			if a.Knob != nil || hasParamIn(sets[0], bis, a.Key) {
				cols = append(cols, a)
				sw.Axes = append(sw.Axes, a.Name())
			}
		}
		for _, g := range gs {
			for _, bi := range bis {
				var row SweepRow
				for _, a := range cols {
					if a.Knob != nil {
						row.Values = append(row.Values, pointValue(cells[g[0]], a.Key))
					} else {
						row.Values = append(row.Values, sets[g[0]].Benchmarks[bi].Params[a.Key])
					}
				}
				for _, i := range g {
					row.Benchmarks = append(row.Benchmarks, sets[i].Benchmarks[bi])
				}
				for _, i := range g[1:] {
					q, ok := asked[i][sets[g[0]].Benchmarks[bi].Key()]
					if !ok {
						row.Vs = append(row.Vs, nil)
						continue
					}
					row.Vs = append(row.Vs, &q.Comparison)
				}
				sw.Rows = append(sw.Rows, row)
			}
		}
		out = append(out, sw)
	}
	return out
}

func hasParamIn(s *result.Set, bis []int, key string) bool {
	for _, bi := range bis {
		if _, ok := s.Benchmarks[bi].Params[key]; ok {
			return true
		}
	}
	return false
}

func pointValue(c Cell, key string) string {
	for _, a := range c.Point {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}
