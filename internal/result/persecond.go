package result

import (
	"fmt"
	"strconv"
	"strings"
)

// Per-second counts. Some references print one number a second rather
// than a total (the powerpc context_switch selftest prints the switches of
// each second, one per line); a run keeps those numbers in its Info, so
// the schema needs no new field and older readers keep them as text.
const (
	// InfoPerSecond is the Info key of the counts, space-separated, one
	// per whole second of the timed window, oldest first.
	InfoPerSecond = "per_second"
	// InfoPerSecondOf is the Info key naming what they count.
	InfoPerSecondOf = "per_second_of"
)

// PerSecond returns r's per-second counts and what they count; ok is
// false when r has none.
func (r *Run) PerSecond() (counts []float64, of string, ok bool, err error) {
	s, has := r.Info[InfoPerSecond]
	if !has {
		return nil, "", false, nil
	}
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, "", false, fmt.Errorf("run %d: info %s: bad count %q", r.Index+1, InfoPerSecond, f)
		}
		counts = append(counts, v)
	}
	return counts, r.Info[InfoPerSecondOf], true, nil
}
