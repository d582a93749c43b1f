package sys

import (
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kdelta/kdelta/internal/testenv"
)

// inMountNSEnv marks the run of the test binary in a private mount
// namespace, where the test may mount and unmount.
const inMountNSEnv = "KDELTA_SYS_MOUNT_NS"

// TestMountMissing mounts tracefs and debugfs where they are missing,
// records them, and unmounts debugfs again while a file under it is open
// (the lazy detach must not fail with EBUSY). It runs in a private mount
// namespace with both unmounted first, so the machine's mounts are
// untouched.
func TestMountMissing(t *testing.T) {
	if os.Getenv(inMountNSEnv) == "" {
		testenv.NeedRoot(t, "mounting tracefs and debugfs")
		unshare := testenv.NeedCommand(t, "unshare", "util-linux")
		cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c",
			`for d in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
				while umount "$d" 2>/dev/null; do :; done
			done
			exec "$0" "$@"`,
			os.Args[0], "-test.run=^TestMountMissing$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), inMountNSEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in a private mount namespace:\n%s", out)
		if err != nil || !strings.Contains(string(out), "--- PASS: TestMountMissing") {
			t.Fatalf("the test in a private mount namespace: %v", err)
		}
		return
	}

	if isFSType(TracefsDir, unix.TRACEFS_MAGIC) || isFSType(DebugfsDir, unix.DEBUGFS_MAGIC) {
		t.Fatal("tracefs or debugfs still mounted")
	}
	if m, err := MountTracefs(); !m || err != nil {
		t.Fatalf("MountTracefs = %v, %v", m, err)
	}
	if m, err := MountTracefs(); m || err != nil {
		t.Errorf("MountTracefs again = %v, %v; want nothing done", m, err)
	}
	if m, err := MountDebugfs(); !m || err != nil {
		t.Fatalf("MountDebugfs = %v, %v", m, err)
	}
	want := []string{"tracefs on /sys/kernel/tracing", "debugfs on /sys/kernel/debug"}
	if got := Mounted(); !reflect.DeepEqual(got, want) {
		t.Errorf("Mounted = %q, want %q", got, want)
	}
	// A file held open under debugfs (its sched directory) makes a plain
	// umount fail with EBUSY.
	f, err := os.Open(DebugfsDir + "/sched")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Unmount(DebugfsDir); err != nil {
		t.Fatal(err)
	}
	if isFSType(DebugfsDir, unix.DEBUGFS_MAGIC) {
		t.Error("debugfs still mounted after Unmount")
	}
	if got := Mounted(); !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("Mounted after Unmount = %q, want %q", got, want[:1])
	}
	if _, err := os.Stat(TracefsDir + "/events/raw_syscalls/sys_enter/id"); err != nil {
		t.Errorf("tracefs mounted, but: %v", err)
	}
}
