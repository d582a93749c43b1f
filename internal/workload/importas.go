package workload

import (
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// ImportAs makes the benchmarks of imported sets benchmarks of the
// workload called name, under its metrics (result.AsWorkload), so that a
// pasted table compares with a run of it: kdelta import --as rcu. An
// empty name leaves the sets as they are.
func ImportAs(sets []*result.Set, name string) error {
	if name == "" {
		return nil
	}
	w, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("--as %s: no such workload (one of %s)", name, strings.Join(Names(), ", "))
	}
	return result.AsWorkload(sets, name, w.Metrics())
}
