package profile

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// A Source returns the result set that a reference which is not a file
// names: a store id, the start of one, or a label query, as kdelta
// compare takes them.
type Source func(ref string) (*result.Set, error)

// Open reads the profiles ref names, a file Load reads or else the set
// src returns, keeping the groups whose name (a benchmark's
// workload:params) starts with only.
func Open(ctx context.Context, ref, only string, src Source) ([]Group, error) {
	var gs []Group
	if _, err := os.Stat(ref); err != nil {
		set, lerr := src(ref)
		if lerr != nil {
			return nil, lerr
		}
		if gs, err = FromSet(ref, set); err != nil {
			return nil, err
		}
	} else if gs, err = Load(ctx, ref); err != nil {
		return nil, err
	}
	return keep(ref, only, gs)
}

// keep is the groups of gs, read from ref, whose name starts with only.
func keep(ref, only string, gs []Group) ([]Group, error) {
	if only == "" {
		return gs, nil
	}
	var out []Group
	for _, g := range gs {
		if strings.HasPrefix(g.Name, only) {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--workload: no profiled benchmark in %s starts with %q", ref, only)
	}
	return out, nil
}

// Diffs diffs the profiles of refs[0] and refs[1] benchmark by benchmark
// (see Match), or, given one ref, the two tables it holds (a mail with
// both reports: the first is A), symbols ordered by by.
func Diffs(ctx context.Context, refs []string, only, by string, src Source) ([]*Diff, error) {
	a, err := Open(ctx, refs[0], only, src)
	if err != nil {
		return nil, err
	}
	if len(refs) == 1 {
		if len(a) != 1 || len(a[0].Profiles) != 2 {
			return nil, fmt.Errorf("%s: profile diff with one file needs exactly two tables in it; give two files", refs[0])
		}
		d, err := Compare(
			Side{Name: refs[0] + " (table 1)", Profiles: a[0].Profiles[:1]},
			Side{Name: refs[0] + " (table 2)", Profiles: a[0].Profiles[1:]}, by)
		if err != nil {
			return nil, fmt.Errorf("--by: %w", err)
		}
		return []*Diff{d}, nil
	}
	b, err := Open(ctx, refs[1], only, src)
	if err != nil {
		return nil, err
	}
	return Match(refs[0], refs[1], a, b, by)
}

// Match diffs the groups of a and b that have the same name. A side with
// a single group (an imported table) pairs with a single group on the
// other side whatever their names.
func Match(nameA, nameB string, a, b []Group, by string) ([]*Diff, error) {
	var diffs []*Diff
	add := func(name string, ga, gb Group) error {
		d, err := Compare(Side{Name: nameA, Profiles: ga.Profiles}, Side{Name: nameB, Profiles: gb.Profiles}, by)
		if err != nil {
			return fmt.Errorf("--by: %w", err)
		}
		d.Name = name
		diffs = append(diffs, d)
		return nil
	}
	if len(a) == 1 && len(b) == 1 {
		name := a[0].Name
		if a[0].Name != b[0].Name && (a[0].Name == nameA || b[0].Name == nameB) {
			name = ""
		}
		return diffs, add(name, a[0], b[0])
	}
	byName := map[string]Group{}
	for _, g := range b {
		byName[g.Name] = g
	}
	for _, ga := range a {
		if gb, ok := byName[ga.Name]; ok {
			if err := add(ga.Name, ga, gb); err != nil {
				return nil, err
			}
		}
	}
	if len(diffs) == 0 {
		return nil, fmt.Errorf("no benchmark profiled in both %s and %s (use --workload to pick one of several)", nameA, nameB)
	}
	return diffs, nil
}

// A FileDiff is the diffs of one file's profiles against the baseline's,
// benchmark by benchmark.
type FileDiff struct {
	Base, Other string
	Diffs       []*Diff
}

// DiffEach diffs the profiles of each of refs[1:] with those of refs[0]
// by share (kdelta compare --profile). A file whose profiles cannot be
// read, or share no benchmark with the baseline's, is left out, with why
// in warnings; without the baseline's profiles nothing is diffed.
func DiffEach(ctx context.Context, refs []string, src Source) (fds []FileDiff, warnings []error) {
	base, err := Open(ctx, refs[0], "", src)
	if err != nil {
		return nil, []error{err}
	}
	for _, other := range refs[1:] {
		gs, err := Open(ctx, other, "", src)
		if err == nil {
			var diffs []*Diff
			if diffs, err = Match(refs[0], other, base, gs, "share"); err == nil {
				fds = append(fds, FileDiff{Base: refs[0], Other: other, Diffs: diffs})
			}
		}
		if err != nil {
			warnings = append(warnings, err)
		}
	}
	return fds, warnings
}
