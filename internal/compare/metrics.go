package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// A Selection says which metrics a comparison judges: the workload's own
// (primary), those and the counters and rusage figures of the runs (all,
// result.CounterMetrics), or the ones named. The zero Selection is the
// default: primary, and all for the sets of kdelta stat and imported perf
// stat blocks, whose counters are what they measure.
type Selection struct {
	mode  string // "", "primary", "all", "list"
	names []string
}

// ParseMetrics reads --metrics: "primary", "all", or a comma-separated
// list of metric names (a workload's metric or a counter's, as compare
// prints them: context-switches/op, voluntary-ctxsw/op).
func ParseMetrics(s string) (Selection, error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return Selection{}, nil
	case "primary", "all":
		return Selection{mode: s}, nil
	}
	var names []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n == "" {
			return Selection{}, fmt.Errorf("--metrics %q: an empty name in the list (primary, all, or metric names separated by commas)", s)
		}
		names = append(names, n)
	}
	return Selection{mode: "list", names: names}, nil
}

// statWorkload tells whether a workload's counters are its measurement:
// kdelta stat's command and an imported perf stat block.
func statWorkload(w string) bool { return w == "stat" || w == "perf-stat" }

// metrics returns the benchmarks all (the baseline first) as the
// selection compares them, with the metrics to judge, in order.
func (sel Selection) metrics(all []*result.Benchmark) ([]*result.Benchmark, []result.Metric) {
	counters := sel.mode == "all" || sel.mode == "list" || sel.mode == "" && statWorkload(all[0].Workload)
	if counters {
		all = slices.Clone(all)
		for i, b := range all {
			all[i], _ = b.CounterMetrics()
		}
	}
	ms := all[0].Metrics
	if sel.mode != "list" {
		return all, ms
	}
	var out []result.Metric
	for _, m := range ms {
		if slices.Contains(sel.names, m.Name) {
			out = append(out, m)
		}
	}
	return all, out
}

// unknown returns the names of a list selection that no benchmark of
// the sets has as a metric or a counter, with the names there are.
func (sel Selection) unknown(sets []*result.Set) (missing, have []string) {
	if sel.mode != "list" {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			cb, _ := b.CounterMetrics()
			for _, m := range cb.Metrics {
				if !seen[m.Name] {
					seen[m.Name] = true
					have = append(have, m.Name)
				}
			}
		}
	}
	for _, n := range sel.names {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	return missing, have
}

// PrimaryMetric is the metric of b that the geometric mean of a
// comparison takes: the workload's first, a time or a rate, or for an
// imported perf stat block its elapsed time (else its task clock); ""
// when b has none that is a cost, so that context switches never stand
// for a workload's speed.
func PrimaryMetric(b *result.Benchmark) string {
	if len(b.Metrics) == 0 {
		return ""
	}
	if b.Workload == "perf-stat" {
		for _, name := range []string{"elapsed", "task-clock", "cpu-clock"} {
			if slices.ContainsFunc(b.Metrics, func(m result.Metric) bool { return m.Name == name }) {
				return name
			}
		}
		return ""
	}
	if b.Metrics[0].Better == result.Neither {
		return ""
	}
	return b.Metrics[0].Name
}
