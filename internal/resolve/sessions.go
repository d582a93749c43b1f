package resolve

import (
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// Side returns the side of a comparison that ref names: the one set Set
// finds, except that a label query matching several stored sets is all
// of them, each set one session of the side (Sessions), so that
// kdelta compare kernel=6.15 kernel=6.16 with three sets a side is three
// sessions a side.
func (r *Resolver) Side(ref string) (*result.Set, error) {
	labels, ok := ParseLabelQuery(ref)
	if _, err := os.Stat(ref); err == nil || !ok {
		return r.Set(ref) // a file is a file, whatever its name
	}
	infos, err := r.Selects(ref, labels)
	if err != nil {
		return nil, err
	}
	if len(infos) == 1 {
		return r.st.Get(r.ctx, infos[0].ID)
	}
	sets := make([]*result.Set, len(infos))
	for i, in := range infos {
		if sets[i], err = r.st.Get(r.ctx, in.ID); err != nil {
			return nil, err
		}
	}
	return Sessions(ref, sets)
}

// Selects returns the stored sets a label query selects, oldest first;
// none is an error naming what the store carries.
func (r *Resolver) Selects(ref string, labels []store.Label) ([]store.Info, error) {
	st, err := r.Store()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	infos, err := st.List(r.ctx, store.Filter{Labels: labels})
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, noneCarries(r.ctx, st, ref, labels)
	}
	return infos, nil
}

// Sessions makes one side of a comparison of the sets a query (ref)
// selected, oldest first: each set is one session of it (a run already
// in a session of its own keeps it, within its set's), so the two-level
// model judges the side over its sessions and estimates their noise from
// them. The sets must be sessions of one thing: the same run conditions
// and hosts; the side keeps the labels they share, the newest set's
// fingerprint and time, and every set's warnings. A benchmark that only
// holds a summary (an imported perf stat -r block) cannot join sessions
// and is left out, said in the warnings.
func Sessions(ref string, sets []*result.Set) (*result.Set, error) {
	newest := sets[len(sets)-1]
	side := &result.Set{
		Schema: newest.Schema, Created: newest.Created, Tool: newest.Tool, Env: newest.Env,
		Conditions: newest.Conditions, Labels: maps.Clone(newest.Labels), Complete: true,
	}
	var ids []string
	seenWarn := map[string]bool{}
	byKey := map[string]*result.Benchmark{}
	summaries := map[string]bool{}
	for _, s := range sets {
		ids = append(ids, s.ID)
		if !maps.Equal(s.Conditions, newest.Conditions) {
			return nil, fmt.Errorf("%s: the sets it selects are not sessions of one thing: %s and %s differ in run conditions (name one, or add a label)", ref, s.ID, newest.ID)
		}
		if h, nh := host(s), host(newest); h != nh {
			return nil, fmt.Errorf("%s: the sets it selects are not sessions of one thing: %s is of host %s, %s of host %s (name one, or add a label)", ref, s.ID, h, newest.ID, nh)
		}
		for k, v := range side.Labels {
			if s.Labels[k] != v {
				delete(side.Labels, k)
			}
		}
		side.Complete = side.Complete && s.Complete
		for _, w := range s.Warnings {
			if !seenWarn[w] {
				seenWarn[w] = true
				side.Warnings = append(side.Warnings, w)
			}
		}
		for _, b := range s.Benchmarks {
			if len(b.Summaries) > 0 {
				summaries[b.Key()] = true
			}
			m := byKey[b.Key()]
			if m == nil {
				m = &result.Benchmark{Workload: b.Workload, Params: b.Params, Metrics: b.Metrics, Skipped: b.Skipped}
				byKey[b.Key()] = m
				side.Benchmarks = append(side.Benchmarks, m)
			}
			for _, run := range b.Runs {
				c := *run
				c.Session = s.ID
				if run.Session != "" && run.Session != s.ID {
					c.Session = s.ID + "/" + run.Session
				}
				c.Index = len(m.Runs)
				m.Runs = append(m.Runs, &c)
			}
		}
	}
	for _, b := range side.Benchmarks {
		if summaries[b.Key()] {
			side.Warnings = append(side.Warnings, fmt.Sprintf("%s: a summary (no runs) cannot be a session; left out of the sessions %s selects", b.Key(), ref))
		}
	}
	// The side's id is the query that makes it again (a permalink of
	// serve's), its sets' ids in its warnings.
	side.ID = ref
	side.Warnings = append(side.Warnings, fmt.Sprintf("%d stored sets selected by %s, judged as %d sessions: %s", len(sets), ref, len(sets), strings.Join(ids, ", ")))
	return side, nil
}

// host names the host a set was measured on: its host label, else its
// fingerprint's hostname, else "unknown".
func host(s *result.Set) string {
	if h := s.Labels["host"]; h != "" {
		return h
	}
	if s.Env != nil && s.Env.Hostname.Known() && s.Env.Hostname.Value != "" {
		return s.Env.Hostname.Value
	}
	return "unknown"
}
