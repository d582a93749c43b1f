package sysinfo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The kernel prints the lines the fingerprint reads from its log (the
// preemption mode, the RCU flavour) once at boot, and a flood of later
// messages (a bridge workload's, say) pushes them out of the ring buffer:
// the same boot would then lose its mode half-way through a session. So
// kdelta keeps those lines per boot, where a reboot empties them (/run),
// and puts them back in front of a log that lost them.

// bootKeepTags mark the log lines worth keeping.
var bootKeepTags = []string{"Dynamic Preempt:", "RCU implementation"}

// bootKeepFile is where this boot's kept lines live: /run/kdelta for
// root, else the user's runtime directory (or the temporary one), named
// by the boot id.
func bootKeepFile(bootID string) string {
	dir := "/run/kdelta"
	if os.Geteuid() != 0 {
		if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
			dir = filepath.Join(d, "kdelta")
		} else {
			dir = filepath.Join(os.TempDir(), "kdelta-"+strconv.Itoa(os.Getuid()))
		}
	}
	return filepath.Join(dir, "bootlog-"+bootID)
}

// keepBootLines returns log with the kept lines of this boot put back in
// front where log lacks them, and saves the lines log has in file, so
// the next fingerprint of this boot finds them. A file that cannot be
// read or written only means nothing is kept.
func keepBootLines(log, file string) string {
	kept, _ := os.ReadFile(file)
	have := keptLines(log)
	var missing []string
	for _, l := range keptLines(string(kept)) {
		if !hasTag(have, tagOf(l)) {
			missing = append(missing, l)
		}
	}
	if len(have) > 0 {
		// What the log has now is newer than what was kept (a mode
		// changed through debugfs prints its line again).
		save := append(append([]string(nil), missing...), have...)
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err == nil {
			_ = os.WriteFile(file, []byte(strings.Join(save, "\n")+"\n"), 0o600)
		}
	}
	if len(missing) == 0 {
		return log
	}
	return strings.Join(missing, "\n") + "\n" + log
}

// keptLines returns the lines of log that carry a keep tag.
func keptLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if tagOf(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func tagOf(line string) string {
	for _, t := range bootKeepTags {
		if strings.Contains(line, t) {
			return t
		}
	}
	return ""
}

func hasTag(lines []string, tag string) bool {
	for _, l := range lines {
		if tagOf(l) == tag {
			return true
		}
	}
	return false
}
