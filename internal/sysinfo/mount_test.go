package sysinfo

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// unmountTracing is the shell that leaves a mount namespace without
// tracefs and debugfs, as on a fresh machine: every mount of them at their
// usual places (stacked ones too) is undone, and the tracepoint ids must
// then be gone.
const unmountTracing = `for d in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
	while umount "$d" 2>/dev/null; do :; done
done
test -e /sys/kernel/tracing/events && { echo "tracefs still mounted" >&2; exit 3; }
`

// TestLiveMountTracefs takes this machine's fingerprint, as root, in a
// private mount namespace where tracefs and debugfs were unmounted first
// (the machine's own mounts are untouched, and the namespace ends with the
// test): tracefs must be mounted again, said in the fingerprint and the
// tuning check, and debugfs mounted only if the preempt file then answers.
func TestLiveMountTracefs(t *testing.T) {
	testenv.NeedRoot(t, "mounting tracefs")
	unshare := testenv.NeedCommand(t, "unshare", "util-linux")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c", unmountTracing+`
"$0" || exit
grep -E ' - (tracefs|debugfs) ' /proc/self/mountinfo
test -e /sys/kernel/tracing/events/raw_syscalls/sys_enter/id || echo "no tracepoint id"`, self)
	cmd.Env = append(os.Environ(), collectEnv+"=/")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper in a mount namespace: %v: %s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var fp Fingerprint
	if err := dec.Decode(&fp); err != nil {
		t.Fatalf("helper output: %v: %s", err, out)
	}
	rest := out[dec.InputOffset():]
	t.Logf("mounts: %q; debugfs preempt: %#v\nafter:\n%s", fp.Mounts, fp.Preempt.Debugfs, rest)

	if len(fp.Mounts) == 0 || fp.Mounts[0] != "tracefs on /sys/kernel/tracing" {
		t.Errorf("mounts = %q, want tracefs on /sys/kernel/tracing first", fp.Mounts)
	}
	if strings.Contains(string(rest), "no tracepoint id") || !strings.Contains(string(rest), " /sys/kernel/tracing ") {
		t.Errorf("tracefs is not mounted after the fingerprint:\n%s", rest)
	}
	debugfsMounted := strings.Contains(string(rest), " /sys/kernel/debug ")
	listed := false
	for _, m := range fp.Mounts {
		listed = listed || m == "debugfs on /sys/kernel/debug"
	}
	switch d := fp.Preempt.Debugfs; {
	case d.Known():
		// The file answered: debugfs stays, and is said.
		if !debugfsMounted || !listed {
			t.Errorf("preempt read from debugfs, but debugfs mounted %v, listed %v", debugfsMounted, listed)
		}
	case fp.Preempt.Dynamic.Value == "no":
		if debugfsMounted || listed {
			t.Errorf("debugfs mounted on a kernel without PREEMPT_DYNAMIC")
		}
	case fp.Lockdown.Value != "" && fp.Lockdown.Value != "none":
		// Lockdown closes the file (the development VM): not mounted.
		if debugfsMounted || listed || !strings.Contains(d.Unknown, "debugfs not mounted, and kernel lockdown ("+fp.Lockdown.Value+") would refuse the file, so kdelta does not mount it") {
			t.Errorf("preempt file unread (%q) under lockdown %q, yet debugfs mounted %v, listed %v", d.Unknown, fp.Lockdown.Value, debugfsMounted, listed)
		}
	default:
		// It did not answer: unmounted again, and the reason says so.
		if debugfsMounted || listed || !strings.Contains(d.Unknown, "kdelta mounted debugfs to read it and unmounted it again") {
			t.Errorf("preempt file unread (%q), yet debugfs mounted %v, listed %v", d.Unknown, debugfsMounted, listed)
		}
	}

	var said []string
	for _, w := range Warnings(&fp, nil) {
		if strings.HasPrefix(w, "mounted ") {
			said = append(said, w)
		}
	}
	if len(said) != len(fp.Mounts) || !strings.HasPrefix(said[0], "mounted tracefs on /sys/kernel/tracing, which was not mounted") {
		t.Errorf("tuning check says %q of mounts %q", said, fp.Mounts)
	}
	var env bytes.Buffer
	if err := WriteText(&env, &fp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.String(), "mounted by kdelta    tracefs on /sys/kernel/tracing") {
		t.Errorf("env text does not say what kdelta mounted:\n%s", env.String())
	}
}
