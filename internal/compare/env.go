package compare

import (
	"fmt"

	"github.com/kdelta/kdelta/internal/result"
)

// EnvDiff lists how b's environment differs from a's, the differences that
// can move kernel benchmarks first, each as "field: A -> B".
func EnvDiff(a, b *result.Env) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	add := func(field, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %s -> %s", field, orUnknown(x), orUnknown(y)))
		}
	}
	add("kernel", a.KernelRelease, b.KernelRelease)
	add("cmdline", a.Cmdline, b.Cmdline)
	add("CPU model", a.CPUModel, b.CPUModel)
	add("online CPUs", a.OnlineCPUs, b.OnlineCPUs)
	add("arch", a.Arch, b.Arch)
	add("kdelta", a.ToolVersion, b.ToolVersion)
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
