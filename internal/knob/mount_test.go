package knob

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

const preemptHelperEnv = "KDELTA_KNOB_PREEMPT_HELPER"

// TestPreemptMountsDebugfs opens the preempt knob as root in a private
// mount namespace whose debugfs was unmounted first, as on a fresh
// machine: the knob must mount debugfs and read the mode, or, where the
// file still does not answer (lockdown on the development VM), say why and
// leave debugfs unmounted as it found it.
func TestPreemptMountsDebugfs(t *testing.T) {
	if os.Getenv(preemptHelperEnv) == "1" {
		s, err := Open([][]Setting{{{Knob: Knob{Name: "preempt", Key: "preempt", Path: PreemptPath, kind: preempt}, Value: "none"}}}, Options{JournalDir: t.TempDir()})
		if err != nil {
			fmt.Println("refused:", err)
			return
		}
		fmt.Println("opened")
		s.Restore()
		return
	}
	testenv.NeedRoot(t, "mounting debugfs")
	unshare := testenv.NeedCommand(t, "unshare", "util-linux")
	if _, err := os.Stat("/sys/kernel/debug/sched"); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c", `
while umount /sys/kernel/debug 2>/dev/null; do :; done
test -e /sys/kernel/debug/sched && { echo "debugfs still mounted" >&2; exit 3; }
"$0" -test.run '^TestPreemptMountsDebugfs$' || exit
grep -cE ' - debugfs ' /proc/self/mountinfo || true`, os.Args[0])
	cmd.Env = append(os.Environ(), preemptHelperEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper in a mount namespace: %v: %s%s", err, out, stderr.String())
	}
	text := string(out)
	t.Logf("helper:\n%s", text)
	lines := strings.Fields(text)
	mounts := lines[len(lines)-1]
	switch {
	case strings.Contains(text, "opened"):
		if mounts == "0" {
			t.Errorf("the preempt knob opened, but debugfs is not mounted:\n%s", text)
		}
	case strings.Contains(text, "refused: preempt: cannot be read: operation not permitted (kernel lockdown restricts debugfs?)"):
		if mounts != "0" {
			t.Errorf("the preempt knob was refused, but debugfs stayed mounted:\n%s", text)
		}
	case strings.Contains(text, "a kernel without PREEMPT_DYNAMIC"):
		if mounts != "0" {
			t.Errorf("no preempt file, but debugfs stayed mounted:\n%s", text)
		}
	default:
		t.Errorf("the preempt knob neither opened nor was refused for lockdown or a missing file:\n%s", text)
	}
}
