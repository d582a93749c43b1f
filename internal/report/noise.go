package report

import (
	"fmt"
	"io"

	"github.com/kdelta/kdelta/internal/store"
)

// WriteNoises lists session noises, as kdelta calibrate, show and env
// print them: per host, each benchmark's metric with its spread between
// sessions beyond its runs' noise, the sessions and runs it was measured
// over, how (kdelta calibrate, or learned from stored twins; nothing for a
// noise recorded before the store kept it) and when, after a blank line that parts them from what precedes.
// Nothing is written for no noises.
func WriteNoises(w io.Writer, ns []store.Noise) {
	host := "\x00"
	for _, n := range ns {
		k := n.Key
		if k.Host != host {
			if host == "\x00" {
				fmt.Fprintln(w)
			}
			host = k.Host
			fmt.Fprintf(w, "session noise on %s (compare widens one session a side by it):\n", hostOr(host))
		}
		what := k.Workload
		if k.Params != "" {
			what += ":" + k.Params
		}
		line := fmt.Sprintf("  %s %s ±%.1f%% between sessions (%d sessions", what, k.Metric, 100*n.Noise.SD, n.Noise.DF+1)
		if n.Noise.Runs > 0 {
			line += fmt.Sprintf(" of %.3g runs", n.Noise.Runs)
		}
		switch n.Source {
		case store.NoiseCalibrated:
			line += ", kdelta calibrate"
		case store.NoiseTwins:
			line += ", learned from stored twins"
		}
		if !n.Measured.IsZero() {
			line += ", " + n.Measured.Format("2006-01-02 15:04 MST")
		}
		line += ")"
		if k.Conditions != "" {
			line += " " + k.Conditions
		}
		writeWrapped(w, "", line, 100)
	}
}

func hostOr(h string) string {
	if h == "" {
		return "an unnamed host"
	}
	return h
}
