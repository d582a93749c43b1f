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

// compareFirst compares benchmark bi of a with its counterpart in b on
// a's first metric, as kdelta compare pairs and compares them.
func compareFirst(a, b *result.Set, bi int, so stats.Options) (stats.Comparison, result.Metric, bool) {
	ba := a.Benchmarks[bi]
	if len(ba.Metrics) == 0 || ba.Skipped != "" {
		return stats.Comparison{}, result.Metric{}, false
	}
	m := ba.Metrics[0]
	bb, _ := compare.Pair(ba, len(a.Benchmarks), b.Benchmarks, compare.Pairing{})
	if bb == nil || bb.Skipped != "" {
		return stats.Comparison{}, m, false
	}
	c, err := compare.Metric(ba, bb, m.Name, compare.Options{Stats: so})
	return c, m, err == nil
}

// A Verdict is one variant against the first at its knob point, on one
// benchmark's first metric.
type Verdict struct {
	Cell, Baseline string
	Benchmark      string
	Metric         string
	Comparison     stats.Comparison
}

// Verdicts compares, at each knob point, each variant with the first on
// each benchmark's first metric.
func Verdicts(cells []Cell, sets []*result.Set, so stats.Options) []Verdict {
	var out []Verdict
	for _, g := range groups(cells) {
		base := sets[g[0]]
		for _, i := range g[1:] {
			for bi, b := range base.Benchmarks {
				c, m, ok := compareFirst(base, sets[i], bi, so)
				if ok {
					out = append(out, Verdict{Cell: cells[i].Name, Baseline: cells[g[0]].Name, Benchmark: b.Key(), Metric: m.Name, Comparison: c})
				}
			}
		}
	}
	return out
}

// Pending lists the comparisons --until-conclusive still waits for: the
// Verdicts that are inconclusive.
func Pending(cells []Cell, sets []*result.Set, so stats.Options) []Verdict {
	var out []Verdict
	for _, v := range Verdicts(cells, sets, so) {
		if v.Comparison.Verdict == stats.Inconclusive {
			out = append(out, v)
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
func SweepTables(cells []Cell, sets []*result.Set, axes []Axis, so stats.Options) []Sweep {
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
					c, _, ok := compareFirst(sets[g[0]], sets[i], bi, so)
					if !ok {
						row.Vs = append(row.Vs, nil)
						continue
					}
					row.Vs = append(row.Vs, &c)
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
