package job

import (
	"fmt"
	"slices"
)

// CheckSwept refuses a matrix axis that sweeps a parameter a workload
// names itself (syscall:calls=1000 with --matrix calls=1,2): one of the
// two would be dropped without a word (issue 35 point 10), so the user
// says which by naming the parameter in one place. A single-valued axis
// sweeps nothing: it sets the parameter, over the workload's value, as a
// test or a quick run makes a shipped job small (--matrix loops=10).
func (j *Job) CheckSwept() error {
	for _, a := range j.Matrix {
		if a.Knob != nil || len(a.Values) < 2 {
			continue
		}
		for _, w := range j.Workloads {
			if slices.Contains(w.Given, a.Key) {
				return fmt.Errorf("%s: the workload %s sets %s itself; name a swept parameter in one place, the workload or the matrix",
					a.Where, w.Where, a.Key)
			}
		}
	}
	return nil
}
