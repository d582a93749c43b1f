// Package history makes series of one metric across kernel builds (the
// values of a label) or across time, from the samples the store returns,
// and finds their change points. The store only answers the query; the
// summaries, the order of the points and the change points are made here.
package history

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// ByTime makes a history with one point per result set, in time order,
// instead of one per value of a label.
const ByTime = "time"

// A Query asks for the series of one metric of one workload across the
// values of a label (kernel builds), or across time.
type Query struct {
	// By is the label whose values are the points of the series, or
	// ByTime.
	By       string
	Workload string
	// Params keeps the benchmarks whose parameters include these.
	Params map[string]string
	// Metric is the metric's name; empty takes the workload's first.
	Metric string
	// Labels keeps the sets that carry all of them.
	Labels []store.Label
	// ChangePoints are the options of the change-point detection.
	ChangePoints stats.ChangePointOptions
}

// A Series is the history of one benchmark (one workload with one set of
// parameters) and one metric.
type Series struct {
	By       string
	Workload string
	Params   map[string]string
	Metric   result.Metric
	Points   []Point
	// Steps are the change points found over the run-level values of the
	// points; each is also on the point where it starts.
	Steps []stats.ChangePoint
	// Unlabelled counts the sets of this benchmark left out for lacking
	// the label By.
	Unlabelled int
}

// A Point is one label value (or one set, by time) with every measured run
// of the sets that carry it.
type Point struct {
	Label   string
	Sets    []string  // ids, oldest first
	Created time.Time // of the oldest set
	Values  []float64
	Summary stats.Summary
	// Change is the relative change of the median from the previous
	// point; NaN for the first.
	Change float64
	// Step is the change point that starts here, if one does.
	Step *stats.ChangePoint
	// Conditions are the run conditions of the point's first set that
	// records them (nil: unknown); Mixed says how a later set of the
	// point differs from them.
	Conditions map[string]string
	Mixed      []result.ConditionDiff
	// Emulated: a set of the point was measured under TCG emulation, its
	// timings qemu's, not the hardware's.
	Emulated bool
	// Versus is kdelta compare's verdict on this point against the one
	// before it, once the series is judged (Series.Judge): the one
	// computation that both a step's marker and kdelta series' step
	// line print. Nil when not judged, and on the first point.
	Versus *Neighbour
}

// StepConditions lists the run conditions that differ between the
// points on either side of the change point cp: a step there may be the
// conditions', not the kernel's, and is said so.
func (s *Series) StepConditions(cp stats.ChangePoint) []result.ConditionDiff {
	if cp.Index < 1 || cp.Index >= len(s.Points) {
		return nil
	}
	return result.DiffConditions(s.Points[cp.Index-1].Conditions, s.Points[cp.Index].Conditions)
}

// Key names the series' benchmark as result.Benchmark.Key does.
func (s *Series) Key() string { return s.Workload + ":" + result.FormatParams(s.Params) }

// A Source answers the query a history is made of; a store.Store is one.
type Source interface {
	Samples(ctx context.Context, q store.SampleQuery) ([]store.Sample, error)
}

// Load builds the series that q asks for from the samples src returns,
// one per distinct benchmark (parameters) of the workload, ordered by
// their parameters. Points by a label are ordered by
// CompareKernelVersions, which also orders plain names naturally; points
// by time are ordered by the sets' creation.
func Load(ctx context.Context, src Source, q Query) ([]*Series, error) {
	if q.By == "" {
		return nil, fmt.Errorf("history: no label to order by (a label such as kernel, or %q)", ByTime)
	}
	if err := q.ChangePoints.Validate(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	samples, err := src.Samples(ctx, store.SampleQuery{Workload: q.Workload, Params: q.Params, Metric: q.Metric, Labels: q.Labels})
	if err != nil {
		return nil, err
	}
	return build(samples, q)
}

// build makes the series of q from samples, which come oldest first.
func build(samples []store.Sample, q Query) ([]*Series, error) {
	// The primary metric must be the same across sets to make a series.
	if q.Metric == "" {
		names := map[string]bool{}
		for _, s := range samples {
			names[s.Metric.Name] = true
		}
		if len(names) > 1 {
			return nil, fmt.Errorf("history: the sets of %s have different first metrics (%s): name one with --metric", q.Workload, strings.Join(sortedKeys(names), ", "))
		}
	}
	byKey := map[string]*Series{}
	at := map[string]map[string]int{} // series key → label → point index
	for _, s := range samples {
		k := s.Key(q.Workload)
		sr := byKey[k]
		if sr == nil {
			sr = &Series{By: q.By, Workload: q.Workload, Params: s.Params, Metric: s.Metric}
			byKey[k] = sr
		}
		label := s.Labels[q.By]
		if q.By == ByTime {
			label = s.Created.UTC().Format("2006-01-02 15:04:05")
		} else if _, ok := s.Labels[q.By]; !ok {
			sr.Unlabelled++
			continue
		}
		// Samples come oldest first, so a point's sets and values do too.
		var p *Point
		if q.By == ByTime {
			// One point per set, even for sets made in the same second.
			if n := len(sr.Points); n > 0 && sr.Points[n-1].Sets[len(sr.Points[n-1].Sets)-1] == s.SetID {
				p = &sr.Points[n-1]
			}
		} else if i, ok := at[k][label]; ok {
			p = &sr.Points[i]
		}
		if p == nil {
			if at[k] == nil {
				at[k] = map[string]int{}
			}
			at[k][label] = len(sr.Points)
			sr.Points = append(sr.Points, Point{Label: label, Created: s.Created})
			p = &sr.Points[len(sr.Points)-1]
		}
		if len(p.Sets) == 0 || p.Sets[len(p.Sets)-1] != s.SetID {
			p.Sets = append(p.Sets, s.SetID)
			switch {
			case p.Conditions == nil:
				p.Conditions = s.Conditions
			default:
				p.Mixed = append(p.Mixed, result.DiffConditions(p.Conditions, s.Conditions)...)
			}
		}
		p.Values = append(p.Values, s.Values...)
		p.Emulated = p.Emulated || s.Emulated
	}
	var out []*Series
	for _, k := range sortedKeys(byKey) {
		sr := byKey[k]
		if q.By != ByTime {
			sort.SliceStable(sr.Points, func(i, j int) bool {
				return CompareKernelVersions(sr.Points[i].Label, sr.Points[j].Label) < 0
			})
		}
		groups := make([]stats.Group, len(sr.Points))
		for i := range sr.Points {
			p := &sr.Points[i]
			p.Summary = stats.Summarize(p.Values)
			p.Change = math.NaN()
			if i > 0 && sr.Points[i-1].Summary.Median != 0 {
				prev := sr.Points[i-1].Summary.Median
				p.Change = (p.Summary.Median - prev) / math.Abs(prev)
			}
			groups[i] = stats.Group{Label: p.Label, Values: p.Values}
		}
		sr.Steps = stats.ChangePoints(groups, q.ChangePoints)
		for i := range sr.Steps {
			cp := sr.Steps[i]
			sr.Points[cp.Index].Step = &cp
		}
		if len(sr.Points) > 0 {
			out = append(out, sr)
		}
	}
	slices.SortStableFunc(out, func(a, b *Series) int { return strings.Compare(a.Key(), b.Key()) })
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// StepVerdict says whether the change point cp is an improvement or a
// regression of the series' metric, by result.Metric.Worse, the one
// direction rule.
func (s *Series) StepVerdict(cp stats.ChangePoint) stats.Verdict {
	if cp.Figures {
		return stats.Inconclusive // single figures: no test
	}
	if s.Metric.Better == result.Neither {
		return stats.Changed
	}
	if s.Metric.Worse(cp.Change) {
		return stats.Regressed
	}
	return stats.Improved
}

// ParseWorkloadRef reads --workload W or W:k=v,k=v: the workload and
// the parameters that pick its benchmark, unchecked, since a stored
// workload need not be one this kdelta knows.
func ParseWorkloadRef(s string) (string, map[string]string, error) {
	name, rest, _ := strings.Cut(s, ":")
	if name == "" {
		return "", nil, fmt.Errorf("--workload: %q names no workload", s)
	}
	if rest == "" {
		return name, nil, nil
	}
	params := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", nil, fmt.Errorf("--workload: %q in %q is not key=value", kv, s)
		}
		params[k] = v
	}
	return name, params, nil
}

// FromSets builds the series that q asks for from sets in memory (kdelta
// series' boots), as Load builds them from the store: each set's
// benchmarks of q.Workload whose parameters include q.Params, their
// measured values of q.Metric (or each benchmark's first metric). Sets
// without the workload add nothing.
func FromSets(sets []*result.Set, q Query) ([]*Series, error) {
	if err := q.ChangePoints.Validate(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var samples []store.Sample
	for _, s := range sets {
		for bi, b := range s.Benchmarks {
			if b.Workload != q.Workload || !hasParams(b.Params, q.Params) || len(b.Metrics) == 0 {
				continue
			}
			m := b.Metrics[0]
			if q.Metric != "" {
				i := slices.IndexFunc(b.Metrics, func(m result.Metric) bool { return m.Name == q.Metric })
				if i < 0 {
					continue
				}
				m = b.Metrics[i]
			}
			samples = append(samples, store.Sample{SetID: s.ID, Created: s.Created, Labels: s.Labels, Conditions: s.Conditions, Bench: bi, Params: b.Params, Metric: m, Values: b.Values(m.Name), Emulated: compare.Emulated(s)})
		}
	}
	return build(samples, q)
}

// hasParams tells whether have includes every parameter of want.
func hasParams(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// Across builds the series of every workload in sets (in the order they
// first appear) by label by, each of its first metric, as kdelta series
// prints them after its boots.
func Across(sets []*result.Set, by string, cp stats.ChangePointOptions) ([]*Series, error) {
	var out []*Series
	seen := map[string]bool{}
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			if seen[b.Workload] {
				continue
			}
			seen[b.Workload] = true
			hs, err := FromSets(sets, Query{By: by, Workload: b.Workload, ChangePoints: cp})
			if err != nil {
				return nil, err
			}
			out = append(out, hs...)
		}
	}
	return out, nil
}
