package counter

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// unmountedEnv marks the run of the test binary inside a private mount
// namespace whose tracefs and debugfs were unmounted.
const unmountedEnv = "KDELTA_COUNTER_TRACEFS_UNMOUNTED"

// unmountTracing leaves the mount namespace without tracefs and debugfs,
// as on a fresh machine where nothing mounted them: every mount at their
// usual places (stacked ones too) is undone.
const unmountTracing = `for d in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
	while umount "$d" 2>/dev/null; do :; done
done
exec "$0" "$@"`

// TestTracepointMountsTracefs is issue 12's fresh machine: tracefs is not
// mounted, and a syscall tracepoint must still be counted as root, as perf
// stat -e raw_syscalls:sys_enter counts it there. The test binary runs
// itself again in a private mount namespace with tracefs and debugfs
// unmounted (the machine's own mounts are untouched, and the namespace
// ends with it), where ParseEvents must mount tracefs and the tracepoint
// must count a real child's system calls.
func TestTracepointMountsTracefs(t *testing.T) {
	if os.Getenv(unmountedEnv) != "" {
		countWithoutTracefs(t)
		return
	}
	testenv.NeedRoot(t, "mounting tracefs")
	unshare := testenv.NeedCommand(t, "unshare", "util-linux")
	skipWithoutPerf(t)
	before := tracingMounts(t)
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c", unmountTracing,
		os.Args[0], "-test.run=^TestTracepointMountsTracefs$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), unmountedEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in a private mount namespace:\n%s", out)
	if m := regexp.MustCompile(`(?m)^\s*\S+: skipped: (.*)$`).FindSubmatch(out); m != nil {
		testenv.Skip(t, string(m[1]))
	}
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestTracepointMountsTracefs")) {
		t.Fatalf("the test in a private mount namespace: %v", err)
	}
	if after := tracingMounts(t); after != before {
		t.Errorf("this namespace's tracing mounts changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// tracingMounts returns the tracefs and debugfs lines of this process's
// mountinfo.
func tracingMounts(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, " - tracefs ") || strings.Contains(l, " - debugfs ") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// countWithoutTracefs is TestTracepointMountsTracefs inside the namespace.
func countWithoutTracefs(t *testing.T) {
	for _, d := range tracingPaths("/") {
		if _, err := os.Stat(d + "/events"); err == nil {
			t.Fatalf("%s/events is there: tracefs was not unmounted", d)
		}
	}
	evs, err := ParseEvents("context-switches,raw_syscalls:sys_enter")
	if err != nil {
		t.Fatal(err)
	}
	if tp := evs[1]; tp.Unsupported != "" || tp.Config == 0 {
		t.Fatalf("raw_syscalls:sys_enter = %+v, want its id from a mounted tracefs", tp)
	}
	if got := sys.Mounted(); len(got) != 1 || got[0] != "tracefs on /sys/kernel/tracing" {
		t.Errorf("mounted %q, want tracefs on /sys/kernel/tracing", got)
	}

	// A real child: n pipe round trips and a grandchild's m getppid calls.
	const n, m = 2000, 50000
	set, _ := countPingPong(t, evs, n, m)
	defer set.Close()
	sc := counterByName(t, set.Read(), "raw_syscalls:sys_enter")
	want := float64(4*n + m)
	if sc.Unsupported != "" || sc.Value < want || sc.Value > want*1.02+1500 {
		t.Errorf("raw_syscalls:sys_enter = %+v, want %.0f .. +2%%+1500 (4×%d pipe calls + %d getppid)", sc, want, n, m)
	}
	t.Logf("syscalls %.0f for %.0f made: %+.2f%%; mounted %s", sc.Value, want, 100*(sc.Value/want-1), strings.Join(sys.Mounted(), ", "))
}
