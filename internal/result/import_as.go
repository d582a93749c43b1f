package result

import "fmt"

// metricAliases are the names tables give the statistics kdelta's
// latency workloads call otherwise.
var metricAliases = map[string]string{"median": "p50", "avg": "mean", "average": "mean", "minimum": "min", "maximum": "max"}

// AsWorkload makes the benchmarks of imported sets benchmarks of the
// workload name, whose metrics are metrics, so that a pasted table
// compares with a kdelta run of that workload (kdelta import --as rcu):
// a metric of the table named as one of the workload's (or as its alias:
// median for p50, avg for mean) takes that metric's definition, and its
// values, and the runs' latency summaries, are converted to its unit of
// time. Other metrics stay as the table has them. A metric whose unit
// cannot be converted is an error.
func AsWorkload(sets []*Set, name string, metrics []Metric) error {
	def := map[string]Metric{}
	for _, m := range metrics {
		def[m.Name] = m
	}
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			if err := benchmarkAs(b, name, def); err != nil {
				return fmt.Errorf("--as %s: %s: %w", name, s.Labels["source"], err)
			}
		}
	}
	return nil
}

func benchmarkAs(b *Benchmark, name string, def map[string]Metric) error {
	b.Workload = name
	for i, m := range b.Metrics {
		to, ok := def[m.Name]
		if !ok {
			to, ok = def[metricAliases[m.Name]]
		}
		if !ok || to.Name != m.Name && hasMetric(b, to.Name) {
			continue
		}
		if m.Unit != to.Unit {
			_, ok1 := timeUnits[m.Unit]
			_, ok2 := timeUnits[to.Unit]
			if !ok1 || !ok2 {
				return fmt.Errorf("metric %s is in %q, %s's %s in %q", m.Name, m.Unit, name, to.Name, to.Unit)
			}
		}
		for _, r := range b.Runs {
			v, has := r.Values[m.Name]
			if !has {
				continue
			}
			delete(r.Values, m.Name)
			r.Values[to.Name] = scaleTime(v, m.Unit, to.Unit)
		}
		b.Metrics[i] = to
	}
	// The latency summaries follow the unit of the workload's mean.
	if mean, ok := def["mean"]; ok {
		for _, r := range b.Runs {
			if l := r.Latency; l != nil && l.Unit != mean.Unit {
				if _, ok := timeUnits[l.Unit]; !ok {
					continue
				}
				for _, x := range []*float64{&l.Mean, &l.Min, &l.P50, &l.P90, &l.P99, &l.Max} {
					*x = scaleTime(*x, l.Unit, mean.Unit)
				}
				l.Unit = mean.Unit
			}
		}
	}
	return nil
}
