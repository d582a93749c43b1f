package profile

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// A Group is the profiles of one thing profiled: a benchmark of a result
// set, or the tables of one imported file.
type Group struct {
	// Name is the benchmark's key, or the file for an import.
	Name     string
	Profiles []*result.Profile
}

// perfDataMagic starts every perf.data file.
var perfDataMagic = []byte("PERFILE2")

// Load reads the profiles in a file: a kdelta result set (one group per
// benchmark that has profiles), a perf.data file (read with perf report
// and perf script), the text of perf report --stdio (each table a
// profile), or the text of perf script. The read gives up when ctx is
// done (an interrupt), as result.ReadInput does.
func Load(ctx context.Context, path string) ([]Group, error) {
	data, err := result.ReadInput(ctx, path, result.MaxSetBytes, "a profile")
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// Decode is Load for data already read; name is the file as the user
// named it.
func Decode(name string, data []byte) ([]Group, error) {
	trimmed := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(data, perfDataMagic):
		p, err := Read("", name, Options{CallGraph: true})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		p.Source = "perf.data " + name
		return []Group{{Name: name, Profiles: []*result.Profile{p}}}, nil
	case bytes.HasPrefix(trimmed, []byte("{")) && bytes.Contains(data, []byte(`"kdelta/result/`)):
		set, err := result.Decode(name, data)
		if err != nil {
			return nil, err
		}
		return FromSet(name, set)
	}
	if looksLikeReport(data) {
		ps, err := ParseReport(name, data)
		if err != nil {
			return nil, err
		}
		return []Group{{Name: name, Profiles: ps}}, nil
	}
	p, err := ParseScript(name, data)
	if err != nil {
		return nil, fmt.Errorf("%w (nor perf report text, a kdelta result set or perf.data)", err)
	}
	return []Group{{Name: name, Profiles: []*result.Profile{p}}}, nil
}

// FromSet returns the profiles of a result set, a group per benchmark.
func FromSet(name string, set *result.Set) ([]Group, error) {
	var gs []Group
	for _, b := range set.Benchmarks {
		if len(b.Profiles) == 0 {
			continue
		}
		g := Group{Name: strings.TrimSuffix(b.Key(), ":")}
		for i := range b.Profiles {
			g.Profiles = append(g.Profiles, &b.Profiles[i])
		}
		gs = append(gs, g)
	}
	if len(gs) == 0 {
		return nil, fmt.Errorf("%s: no profiles in this result set (record them with kdelta run --profile)", name)
	}
	return gs, nil
}

// looksLikeReport tells perf report text from perf script text: a report
// has rows that start with a percentage.
func looksLikeReport(data []byte) bool {
	for _, l := range strings.Split(string(data), "\n") {
		l = quoteRE.ReplaceAllString(l, "")
		if rowStartRE.MatchString(l) {
			return true
		}
		if scriptHeaderRE.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			return false
		}
	}
	return false
}
