package cli_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/workload"
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
	found, _ := filepath.Glob(filepath.Join(home, ".cache", "kdelta", "kernels", "*-amd64", "boot", "vmlinuz-*"))
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
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
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
	// between good and bad (--bad) rather than against a noise band. On a
	// busy host one run in five can take 70 times the others (a vCPU
	// thread descheduled): with five runs a side, the interval's bound is
	// the third smallest of 25 pairwise ratios, which one such run in the
	// reference reaches, and the step straddles the midpoint. Ten runs in
	// each reference, and up to ten in a step (a second boot), keep one
	// stray run from deciding.
	work := "rcu:calls=10"
	measure := func(name, appendArgs string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		cmd := exec.Command(bin, "vm", "--kernel", kernel, "--append", appendArgs,
			"-o", out, "--", "run", work, "-r", "10", "--warmup", "0")
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
		" --workload "+work+" -r 5 --max-runs 10 --warmup 0 --metric p50 --threshold 50% --no-store\n"), 0o755)

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

// referenceSet writes, as path, a result set of the workload spec whose
// first metric took the given values: a --good set for bisect-run, made
// here because what these tests check does not depend on its values.
func referenceSet(t *testing.T, path, spec string, values ...float64) {
	t.Helper()
	sp, err := workload.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ms := workload.MetricsOf(sp)
	b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values), Metrics: ms}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, v := range values {
		b.Runs = append(b.Runs, &result.Run{Index: i, Start: start.Add(time.Duration(i) * time.Second),
			Status: result.StatusOK, Values: map[string]float64{ms[0].Name: v}})
	}
	set := &result.Set{Schema: result.Schema, ID: "reference-" + sp.Workload.Name(), Created: start, Tool: "test",
		Labels: map[string]string{"kernel": "reference"}, Benchmarks: []*result.Benchmark{b}, Complete: true}
	if err := result.Save(path, set); err != nil {
		t.Fatal(err)
	}
}

// bisectVM runs kdelta bisect-run --vm on the test kernel with args, and
// returns its exit status, output and the number of boots it made. A
// bisect-run that boots for ever is stopped after five minutes.
func bisectVM(t *testing.T, args ...string) (code int, stdout, stderr string, boots int) {
	t.Helper()
	kernel := vmKernel(t)
	bin := kdeltaBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"bisect-run", "--vm", kernel, "--no-store"}, args...)...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	boots = strings.Count(errOut.String(), "): result in ")
	t.Logf("bisect-run --vm %s: %.1f s, %d boots, %v\n%s%s", strings.Join(args, " "), time.Since(start).Seconds(), boots, err, out.String(), errOut.String())
	if ctx.Err() != nil {
		t.Fatalf("bisect-run --vm still booting after 5 minutes (%d boots)", boots)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String(), boots
}

// TestBisectRunVMSkipped: a workload the guest skips (bridge, which needs
// modules the guest does not have without --modules) ends bisect-run with
// 125 and the skip's reason after one boot, where it used to boot again
// and again; in any case it may take no more than ceil(max-runs / -r)
// boots.
func TestBisectRunVMSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const spec = "bridge:cycles=1"
	good := filepath.Join(dir, "good.json")
	referenceSet(t, good, spec, 100, 101, 99, 100, 102)
	const repeat, maxRuns = 1, 3
	code, stdout, _, boots := bisectVM(t, "--good", good, "--workload", spec,
		"-r", strconv.Itoa(repeat), "--max-runs", strconv.Itoa(maxRuns), "--warmup", "0")
	if code != 125 {
		t.Errorf("exit %d, want 125", code)
	}
	if limit := (maxRuns + repeat - 1) / repeat; boots > limit {
		t.Errorf("%d boots, more than ceil(%d / %d) = %d", boots, maxRuns, repeat, limit)
	}
	if boots != 1 {
		t.Errorf("%d boots, want 1: the guest's skip says all there is to know", boots)
	}
	if !strings.Contains(stdout, "skipped: ") || !strings.Contains(stdout, "--modules") {
		t.Errorf("the output does not give the guest's reason for the skip (naming --modules):\n%s", stdout)
	}
}

// TestBisectRunVMSecondBoot: with --max-runs above -r, an undecided first
// boot is followed by a second, whose runs join the first's, numbered on
// and marked with their boot; one run against five can never be decided,
// nor two against five (the smallest two-sided p is 2/21), so there are
// exactly two boots and the answer is 125 — with the runs judged as
// independent (--session-noise 0), as the rank test does; under a prior
// session noise one run a side can be judged. A fall-back to TCG, if any, is
// said once, not once per boot.
func TestBisectRunVMSecondBoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const spec = "syscall:calls=20000"
	good := filepath.Join(dir, "good.json")
	referenceSet(t, good, spec, 1000, 1010, 990, 1000, 1020)
	out := filepath.Join(dir, "step.json")
	code, stdout, stderr, boots := bisectVM(t, "--good", good, "--workload", spec,
		"-r", "1", "--max-runs", "2", "--warmup", "0", "--session-noise", "0", "-o", out)
	if code != 125 {
		t.Errorf("exit %d, want 125", code)
	}
	if boots != 2 {
		t.Errorf("%d boots, want 2", boots)
	}
	if !strings.Contains(stdout, "cannot tell after --max-runs 2") {
		t.Errorf("the output does not say --max-runs 2 was reached:\n%s", stdout)
	}
	if n := strings.Count(stderr, "TCG"); n > 1 {
		t.Errorf("TCG named %d times on stderr, want at most once:\n%s", n, stderr)
	}
	s, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Benchmarks[0].Runs {
		got = append(got, fmt.Sprintf("%d:%s:boot %s", r.Index, r.Status, r.Info["boot"]))
	}
	if want := "0:ok:boot 0 1:ok:boot 1"; strings.Join(got, " ") != want {
		t.Errorf("runs %q, want %q", strings.Join(got, " "), want)
	}
}
