package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// vmKernel returns the kernel the qemu tests boot, or skips saying why.
func vmKernel(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testenv.Skip(t, "qemu-system-x86_64 not installed (scripts/vm-kernel.sh installs it): skipped")
	}
	if k := os.Getenv("KDELTA_TEST_KERNEL"); k != "" {
		return k
	}
	home, _ := os.UserHomeDir()
	found, _ := filepath.Glob(filepath.Join(home, ".cache", "kdelta", "kernels", "*", "boot", "vmlinuz-*"))
	if len(found) == 0 {
		testenv.Skip(t, "no test kernel: set KDELTA_TEST_KERNEL or run scripts/vm-kernel.sh: skipped")
	}
	sort.Strings(found)
	return found[len(found)-1]
}

// TestBisectRunVM drives a real git bisect run over a history whose
// "build" picks the guest kernel's command line: up to commit k the kernel
// boots with rcupdate.rcu_expedited=1 (membarrier returns in microseconds),
// from commit k on without it (a normal grace period, milliseconds).
// bisect-run --vm boots the kernel with each step's command line, measures
// rcu inside, and git must name commit k.
func TestBisectRunVM(t *testing.T) {
	kernel := vmKernel(t)
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Skip(t, "git not installed: skipped")
	}
	bin := kdeltaBinary(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	os.MkdirAll(repo, 0o755)
	git("init", "-q")
	const commits, k = 6, 4
	for i := 1; i <= commits; i++ {
		appendArgs := "rcupdate.rcu_expedited=1"
		if i >= k {
			appendArgs = ""
		}
		os.WriteFile(filepath.Join(repo, "append"), []byte(appendArgs), 0o644)
		os.WriteFile(filepath.Join(repo, "version"), []byte(strconv.Itoa(i)), 0o644)
		git("add", "append", "version")
		git("commit", "-q", "-m", "commit "+strconv.Itoa(i))
	}
	revs := strings.Fields(git("rev-list", "--reverse", "HEAD"))

	env := append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	// The good and bad result sets: measured once each, in guests booted
	// as commit 1 and the last commit are. Under TCG the expedited latency
	// swings by several times from boot to boot, so a step is placed
	// between good and bad (--bad) rather than against a noise band.
	work := "rcu:calls=10"
	measure := func(name, appendArgs string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		cmd := exec.Command(bin, "vm", "--kernel", kernel, "--append", appendArgs,
			"-o", out, "--", "run", work, "-r", "5")
		cmd.Env = env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kdelta vm (%s): %v\n%s", name, err, b)
		}
		sets, _ := filepath.Glob(filepath.Join(out, "*.json"))
		if len(sets) != 1 {
			t.Fatalf("%s result sets: %v", name, sets)
		}
		return sets[0]
	}
	good := measure("good", "rcupdate.rcu_expedited=1")
	bad := measure("bad", "")
	script := filepath.Join(dir, "step.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec "+bin+" bisect-run --vm "+kernel+` --append "$(cat append)" --good `+good+" --bad "+bad+
		" --workload "+work+" -r 5 --max-runs 5 --warmup 0 --metric p50 --threshold 50% --no-store\n"), 0o755)

	git("bisect", "start", revs[commits-1], revs[0])
	run := exec.Command("git", "bisect", "run", script)
	run.Dir = repo
	run.Env = env
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("git bisect run: %v\n%s", err, out)
	}
	if want := revs[k-1] + " is the first bad commit"; !strings.Contains(string(out), want) {
		t.Errorf("git bisect run did not name commit %d (%s):\n%s", k, revs[k-1], out)
	}
}
