package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/knob"
)

// WriteRestore is kdelta restore's output: what each journal in dir put
// back (on out) and what it could not (on warn, each after "kdelta: "),
// the knobs that already held their old value, and the knobs that a
// running kdelta holds and restores itself. It reports whether any
// journal failed and stays for another try, and whether any was set
// aside (renamed .bad, nothing in it done, never tried again).
func WriteRestore(out, warn io.Writer, dir string, done []knob.Recovery, holders []knob.Holder) (failed, aside bool) {
	for _, r := range done {
		for _, l := range r.Done() {
			fmt.Fprintln(out, l)
		}
		for _, l := range r.Warnings() {
			fmt.Fprintf(warn, "kdelta: %s\n", l)
		}
		for _, e := range r.Unchanged {
			fmt.Fprintf(out, "%s=%s (%s) already held its old value\n", e.Key, e.Value, e.Path)
		}
		failed = failed || r.Err != nil && !r.SetAside
		aside = aside || r.SetAside
	}
	for _, h := range holders {
		for _, e := range h.Knobs {
			fmt.Fprintf(out, "kdelta pid %d is running and restores %s=%s (%s) when it ends\n", h.PID, e.Key, e.Value, e.Path)
		}
		if h.Shield != "" {
			fmt.Fprintf(out, "kdelta pid %d is running and takes its CPU shield on %s down when it ends\n", h.PID, h.Shield)
		}
	}
	if len(done) == 0 && len(holders) == 0 {
		fmt.Fprintf(out, "nothing to restore (no journal in %s)\n", dir)
		// Journals set aside earlier are not tried again: say they are
		// there for a human.
		if bad, _ := filepath.Glob(filepath.Join(dir, "*.json.bad")); len(bad) > 0 {
			fmt.Fprintf(warn, "kdelta: warning: %d journal(s) set aside earlier, never tried again, wait for a human in %s: %s\n", len(bad), dir, strings.Join(bad, ", "))
		}
	}
	return failed, aside
}
