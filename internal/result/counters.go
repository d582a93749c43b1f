package result

import (
	"slices"
	"strings"
)

// A run carries figures beside its workload's metrics: the perf counters
// of -e, and the rusage of its child (voluntary and involuntary context
// switches, user and system time). Seed mail 001 compares context
// switches and then their voluntary/involuntary split; to compare them as
// metrics, CounterMetrics turns them into metrics of their own — per
// operation when every measured run knows its operations, per run
// otherwise — each with its own direction.

// CounterBetter is the direction of a counter named as perf names it, in
// unit: times and cycles are costs (lower is better); every other count —
// context switches, migrations, system calls, page faults, instructions —
// is work the kernel did, neither better nor worse by itself.
func CounterBetter(name, unit string) Better {
	if timeUnit(unit) {
		return Lower
	}
	switch n := strings.ToLower(name); {
	case n == "elapsed", n == "user", n == "sys", strings.HasSuffix(n, "-clock"),
		strings.HasSuffix(n, "cycles"), strings.HasPrefix(n, "stalled-cycles"):
		return Lower
	}
	return Neither
}

func timeUnit(unit string) bool {
	u := strings.TrimSuffix(unit, "/op")
	switch u {
	case "s", "sec", "secs", "seconds", "ms", "msec", "msecs", "us", "usec", "usecs", "µs", "ns", "nsec", "nsecs":
		return true
	}
	return false
}

// CounterMetrics returns a view of b with its counters and rusage figures
// as metrics after the workload's own (the copy's Metrics and every
// measured run's Values; b is not changed), and the metrics it added. A
// figure becomes a metric only when every measured run has it (a counter
// perf could not count, an import without rusage add none), and never
// under the name of one of the workload's metrics (an imported perf stat
// block already holds its counters as metrics).
func (b *Benchmark) CounterMetrics() (*Benchmark, []Metric) {
	runs := b.Measured()
	if len(runs) == 0 {
		return b, nil
	}
	perOp := true
	for _, r := range runs {
		perOp = perOp && r.Ops > 0
	}
	per := func(v float64, r *Run) float64 {
		if perOp {
			return v / r.Ops
		}
		return v
	}
	type figure struct {
		m   Metric
		get func(*Run) (float64, bool)
	}
	var figs []figure
	suffix := func(name string) string {
		if perOp {
			return name + "/op"
		}
		return name
	}
	unitOf := func(unit string) string {
		if perOp {
			return strings.TrimSpace(unit + "/op")
		}
		return unit
	}
	for _, c := range runs[0].Counters {
		name, unit := c.Name, c.Unit
		figs = append(figs, figure{
			m: Metric{Name: suffix(name), Unit: unitOf(unit), Better: CounterBetter(name, unit), Doc: "perf counter " + name},
			get: func(r *Run) (float64, bool) {
				for _, rc := range r.Counters {
					if rc.Name == name && rc.Unsupported == "" {
						return per(rc.Value, r), true
					}
				}
				return 0, false
			},
		})
	}
	// Times per operation in ns (a syscall is a fraction of a µs), per
	// run in s.
	timeUnit, timeScale := "s", 1.0
	if perOp {
		timeUnit, timeScale = "ns/op", 1e9
	}
	rusage := []struct {
		name, unit, doc string
		scale           float64
		lack            Figures
		better          Better
		get             func(*Run) float64
	}{
		{"voluntary-ctxsw", unitOf(""), "voluntary context switches of the child (rusage)", 1, FigVolCtxSw, Neither, func(r *Run) float64 { return float64(r.VolCtxSw) }},
		{"involuntary-ctxsw", unitOf(""), "involuntary context switches of the child (rusage)", 1, FigInvolCtxSw, Neither, func(r *Run) float64 { return float64(r.InvolCtxSw) }},
		{"user", timeUnit, "user CPU time of the child (rusage)", timeScale, FigUser, Lower, func(r *Run) float64 { return r.UserSec }},
		{"sys", timeUnit, "system CPU time of the child (rusage)", timeScale, FigSys, Lower, func(r *Run) float64 { return r.SysSec }},
	}
	for _, f := range rusage {
		figs = append(figs, figure{
			m: Metric{Name: suffix(f.name), Unit: f.unit, Better: f.better, Doc: f.doc},
			get: func(r *Run) (float64, bool) {
				if r.Lacks&f.lack != 0 {
					return 0, false
				}
				return per(f.get(r), r) * f.scale, true
			},
		})
	}
	out := *b
	out.Metrics = slices.Clone(b.Metrics)
	values := map[*Run]map[string]float64{}
	var added []Metric
	for _, f := range figs {
		if slices.ContainsFunc(out.Metrics, func(m Metric) bool { return m.Name == f.m.Name }) {
			continue
		}
		vs := make([]float64, len(runs))
		all := true
		for i, r := range runs {
			vs[i], all = f.get(r)
			if !all {
				break
			}
		}
		if !all {
			continue
		}
		for i, r := range runs {
			if values[r] == nil {
				values[r] = map[string]float64{}
			}
			values[r][f.m.Name] = vs[i]
		}
		out.Metrics = append(out.Metrics, f.m)
		added = append(added, f.m)
	}
	if len(added) == 0 {
		return b, nil
	}
	out.Runs = make([]*Run, len(b.Runs))
	for i, r := range b.Runs {
		extra, ok := values[r]
		if !ok {
			out.Runs[i] = r
			continue
		}
		cp := *r
		cp.Values = make(map[string]float64, len(r.Values)+len(extra))
		for k, v := range r.Values {
			cp.Values[k] = v
		}
		for k, v := range extra {
			cp.Values[k] = v
		}
		out.Runs[i] = &cp
	}
	return &out, added
}
