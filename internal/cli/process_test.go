package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// runIn runs kdelta in a process of the test's making.
func runIn(p cli.Process) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	p.Stdout, p.Stderr = &out, &errs
	code = cli.Run(context.Background(), p)
	return code, out.String(), errs.String()
}

// TestUsageNeedsLinux runs the commands that measure as on a Mac: each
// exits 2 with one line saying it needs Linux and what it would have done,
// before it touches anything, while the commands that read results work.
func TestUsageNeedsLinux(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	ns := []float64{100, 101.5, 99.2, 100.4, 98.9}
	value := []float64{50, 51, 49.5, 50.2, 50.6}
	a := withEnv(t, goldenSet(t, dir, "a", "6.15", "", ns, value, false), "6.15.0")
	b := withEnv(t, goldenSet(t, dir, "b", "6.16", "", scaledBy(1.1, ns), value, false), "6.16.0")
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "--no-store", "syscall"}, "kdelta run needs Linux: it measures this machine's kernel (this is darwin, "},
		{[]string{"stat", "--no-store", "--", "true"}, "kdelta stat needs Linux: it measures a command"},
		{[]string{"ab", "--variant", "x:rcu_expedited=1", "--", "syscall"}, "kdelta ab needs Linux: it changes and measures"},
		{[]string{"vm", "--kernel", "bzImage", "--", "run", "syscall"}, "kdelta vm needs Linux: it boots a kernel"},
		{[]string{"bisect-run", "--good", a}, "kdelta bisect-run needs Linux"},
		{[]string{"restore"}, "kdelta restore needs Linux: it writes back"},
		{[]string{"env"}, "kdelta env needs Linux: it reads this machine's kernel fingerprint"},
		{[]string{"env", "diff", a, "-"}, "kdelta env diff needs Linux: it reads this machine's kernel fingerprint for -"},
	} {
		code, stdout, stderr := runIn(cli.Process{Args: tt.args, GOOS: "darwin"})
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "kdelta: "+tt.says) {
			t.Errorf("kdelta %v on darwin: exit %d, stdout %q, stderr %q; want exit 2, no output and one line starting %q",
				tt.args, code, stdout, stderr, "kdelta: "+tt.says)
		}
	}
	for _, args := range [][]string{
		{"compare", a, b},
		{"show", a},
		{"env", "diff", a, b},
		{"list"},
		{"run", "--help"},
	} {
		code, stdout, stderr := runIn(cli.Process{Args: args, GOOS: "darwin"})
		if code != 0 || stdout == "" || strings.Contains(stderr, "needs Linux") {
			t.Errorf("kdelta %v on darwin: exit %d, stderr %q, %d bytes of output; want it to work", args, code, stderr, len(stdout))
		}
	}
}

// withEnv gives the set at path a fingerprint of kernel release.
func withEnv(t *testing.T, path, release string) string {
	t.Helper()
	s, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Env = &sysinfo.Fingerprint{Kernel: sysinfo.Kernel{Release: sysinfo.Fact{Value: release}}}
	if err := result.Save(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestResolveStoreFromProcessEnv checks that the store comes from the
// environment kdelta is run with, not the test process's: $KDELTA_STORE
// names it, and a Process without one leaves the default.
func TestResolveStoreFromProcessEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KDELTA_STORE", filepath.Join(dir, "from-the-real-environment.db"))
	given := filepath.Join(dir, "given.db")
	env := func(k string) string {
		if k == "KDELTA_STORE" {
			return given
		}
		return ""
	}
	code, _, stderr := runIn(cli.Process{Args: []string{"results", "ls"}, Getenv: env, GOOS: "linux"})
	if code != 2 || !strings.Contains(stderr, "no store at "+given+" yet") {
		t.Errorf("results ls with KDELTA_STORE=%s given: exit %d, stderr %q; want exit 2 and no store at it", given, code, stderr)
	}
	xdg := filepath.Join(dir, "xdg")
	t.Setenv("XDG_DATA_HOME", xdg)
	code, _, stderr = runIn(cli.Process{Args: []string{"results", "ls"}, GOOS: "linux"})
	if want := "no store at " + filepath.Join(xdg, "kdelta", "kdelta.db") + " yet"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("results ls with no environment given: exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
	// The flag still wins over the environment.
	flag := filepath.Join(dir, "flag.db")
	code, _, stderr = runIn(cli.Process{Args: []string{"results", "ls", "--store", flag}, Getenv: env, GOOS: "linux"})
	if code != 2 || !strings.Contains(stderr, "no store at "+flag+" yet") {
		t.Errorf("results ls --store %s: exit %d, stderr %q; want exit 2 and no store at the flag's", flag, code, stderr)
	}
}
