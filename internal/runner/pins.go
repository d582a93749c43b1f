package runner

import (
	"fmt"
	"slices"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/workload"
)

// CheckPins refuses a spec that pins a task to a CPU the children may not
// use: one outside --cpus (opt.CPUs), or, without it, outside this
// process's affinity (offline, or not allowed to kdelta). Such a pin
// fails in every run, so it is refused before the first.
func CheckPins(specs []workload.Spec, opt *Options) error {
	allowed := opt.CPUs
	for _, sp := range specs {
		p, ok := sp.Workload.(workload.Pinner)
		if !ok {
			continue
		}
		for _, c := range p.PinnedCPUs(sp.Values) {
			if allowed == nil {
				var err error
				if allowed, err = sys.Affinity(0); err != nil {
					return err
				}
			}
			if !slices.Contains(allowed, c) {
				where := "this machine's online CPUs allowed to kdelta"
				if opt.CPUs != nil {
					where = "--cpus"
				}
				return fmt.Errorf("workload %s: parameter cpus=%s: CPU %d is not in %s (%s)", sp.Workload.Name(), sp.Values.String("cpus"), c, where, sys.FormatCPUList(allowed))
			}
		}
	}
	return nil
}
