package compare

import (
	"fmt"
	"strings"

	"github.com/kdelta/kdelta/internal/sysinfo"
)

// EnvDiff lists, for the head of a comparison, how b's environment differs
// from a's in ways that move kernel benchmarks ("preempt.mode: voluntary
// -> lazy"), plus the run-time preemption mode even when it is the same —
// the reviewer's first question — and a count of the other differences.
func EnvDiff(a, b *sysinfo.Fingerprint) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	other := 0
	for _, d := range sysinfo.Diff(a, b) {
		switch {
		case d.Same && strings.HasPrefix(d.Note, "both "):
			out = append(out, fmt.Sprintf("= %s: %s", d.Field, d.Note))
		case d.Same:
			out = append(out, fmt.Sprintf("= %s: %s (same)", d.Field, d.A))
		case d.Relevant:
			out = append(out, fmt.Sprintf("! %s: %s -> %s", d.Field, d.A, d.B))
			if d.Note != "" {
				out = append(out, "    "+d.Note)
			}
		default:
			other++
		}
	}
	if other > 0 {
		out = append(out, fmt.Sprintf("  and %d other differences (kdelta env diff shows them)", other))
	}
	return out
}
