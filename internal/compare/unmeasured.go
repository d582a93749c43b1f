package compare

import (
	"fmt"
	"strings"
)

// Unmeasured names each benchmark of the baseline that a set compared
// holds without a measured run or a summary (every run failed, timed out
// or was skipped): a side the comparison cannot judge, which kdelta
// compare says, and which --fail-on fails, since a gate that passes on a
// broken run is no gate.
func (r *Result) Unmeasured() []string {
	if len(r.Inputs) == 0 {
		return nil
	}
	var out []string
	base := r.Inputs[0].Set
	for _, bb := range base.Benchmarks {
		for i, in := range r.Inputs {
			b := bb
			if i > 0 {
				if b = match(bb, base, in.Set); b == nil {
					continue
				}
			}
			if len(b.Measured()) == 0 && len(b.Summaries) == 0 {
				out = append(out, fmt.Sprintf("%s: no measured runs in %s (%s): nothing to compare", strings.TrimSuffix(b.Key(), ":"), r.Names[i], whyUnmeasured(b.Skipped, len(b.Runs))))
			}
		}
	}
	return out
}

func whyUnmeasured(skipped string, runs int) string {
	switch {
	case skipped != "":
		return "skipped: " + skipped
	case runs == 0:
		return "no runs"
	}
	return fmt.Sprintf("%d runs, none ok", runs)
}
