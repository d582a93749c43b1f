package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/workload"
)

// WriteWorkloads is kdelta list: each workload with its parameters (kind
// or choices, default, what it sets) and its metrics (unit, direction).
func WriteWorkloads(w io.Writer, ws []workload.Workload) {
	for i, wl := range ws {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s — %s\n", wl.Name(), wl.Doc())
		fmt.Fprintln(w, "  parameters:")
		for _, p := range wl.Params() {
			kind := p.Kind.String()
			if len(p.Choices) > 0 {
				kind = strings.Join(p.Choices, "|")
			}
			def := p.Default
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(w, "    %-10s %-22s default %-10s %s\n", p.Name, kind, def, p.Doc)
		}
		fmt.Fprintln(w, "  metrics:")
		for _, m := range wl.Metrics() {
			fmt.Fprintf(w, "    %-14s %-8s %-6s better  %s\n", m.Name, m.Unit, m.Better, m.Doc)
		}
	}
}
