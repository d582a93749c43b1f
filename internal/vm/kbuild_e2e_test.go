package vm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/doctest"
	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/kbuild/kbuildtest"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// kdeltaBuilt runs the static kdelta with the tests' build cache, and
// returns its standard output and error.
func kdeltaBuilt(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	bin := staticKdelta(t)
	cache := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "XDG_DATA_HOME="+cache, "KDELTA_STORE=",
		kbuild.CacheEnv+"="+kbuildtest.BuildCache())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("kdelta %s: %.1f s\n%s", strings.Join(args, " "), time.Since(start).Seconds(), stderr.String())
	return stdout.String(), stderr.String(), err
}

// TestVMBuiltKernel boots Debian's 6.1 source built at its base commit
// (tinyconfig and kdelta's fragment) with kdelta vm --kernel git:DIR@REV:
// the guest's fingerprint is the built kernel's, the set records the
// commit, its subject and the config's hash, and the guest powers off by
// itself (ACPI from the fragment), so the host ends nothing. Asked again,
// nothing is built.
func TestVMBuiltKernel(t *testing.T) {
	testKernelTools(t)
	dir := kbuildtest.Source(t)
	out := t.TempDir()
	ref := "git:" + dir + "@" + kbuildtest.BaseTag
	for i := 0; i < 2; i++ {
		stdout, stderr, err := kdeltaBuilt(t, "vm", "--kernel", ref, "--config", "tinyconfig", "--accel", "tcg",
			"--timeout", "10m", "-o", out, "--", "run", "syscall:calls=100000", "-r", "2", "--warmup", "0")
		if err != nil {
			t.Fatalf("kdelta vm: %v\n%s", err, stdout)
		}
		if i == 1 && (!strings.Contains(stderr, "built before (cache)") || strings.Contains(stderr, "kbuild: building")) {
			t.Errorf("second kdelta vm built again:\n%s", stderr)
		}
		if strings.Contains(stderr, "kdelta ended qemu") {
			t.Errorf("the guest did not power off by itself:\n%s", stderr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		t.Fatalf("result files %v, want 1", files)
	}
	s, err := result.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	base := kbuildtest.Git(t, dir, "rev-parse", kbuildtest.BaseTag+"^{commit}")
	if s.Labels[LabelCommit] != base || s.Labels[LabelSubject] != "linux-source-6.1 as Debian ships it" || len(s.Labels[LabelConfigHash]) != 64 {
		t.Errorf("labels %v: want the commit %s, its subject and the config's hash", s.Labels, base)
	}
	if s.Env == nil || s.Env.Kernel.Release.Value != "6.1.192-g"+kbuildtest.Short(base) {
		t.Errorf("the guest's fingerprint is not the built kernel's: %+v", s.Env)
	}
}

// testKernelTools skips without qemu (failing under CI).
func testKernelTools(t *testing.T) {
	t.Helper()
	testenv.NeedCommand(t, "qemu-system-x86_64", "qemu-system-x86")
}

// TestSeriesBuilt is acceptance 1: four commits on the kernel source (a
// comment, a line printed at boot, udelay(2) in getppid(), a comment
// after it); kdelta series --kernel git:BASE..HEAD builds every commit,
// boots them round-robin and names the third commit, with its subject,
// as the one step of syscall's figure, and no other.
func TestSeriesBuilt(t *testing.T) {
	testKernelTools(t)
	dir := kbuildtest.Source(t)
	hs := kbuildtest.Branch(t, dir, "kdelta-series", kbuildtest.SeriesEdits)
	stdout, stderr, err := kdeltaBuilt(t, "series", "--kernel", "git:"+dir+"@"+kbuildtest.BaseTag+"..kdelta-series",
		"--config", "tinyconfig", "--accel", "tcg", "--boots", "3", "--timeout", "10m",
		"--", "run", "syscall:calls=20000", "-r", "3", "--warmup", "1")
	t.Logf("stdout:\n%s", stdout)
	if err != nil {
		t.Fatalf("kdelta series: %v", err)
	}
	for i, h := range hs {
		if !strings.Contains(stderr, kbuildtest.Short(h)) {
			t.Errorf("commit %d (%s) not built or booted", i+1, kbuildtest.Short(h))
		}
	}
	steps := stepLines(stdout)
	if len(steps) != 1 {
		t.Fatalf("steps %q: want one", steps)
	}
	if !strings.Contains(steps[0], kbuildtest.Short(hs[2])) || !strings.Contains(steps[0], kbuildtest.SeriesEdits[2].Subject) {
		t.Errorf("the step %q does not name the third commit %s (%s)", steps[0], kbuildtest.Short(hs[2]), kbuildtest.SeriesEdits[2].Subject)
	}
	// The README shows this series: it says what kdelta prints.
	ex, err := doctest.Find([]string{"../../README.md"}, "series-built")
	if err != nil {
		t.Fatal(err)
	}
	if d := ex.Match(0, stdout); d != "" {
		t.Error(d)
	}
}

// stepLines are the lines of kdelta series's output that name a commit
// as a step.
func stepLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "step at commit ") {
			ls = append(ls, strings.TrimSpace(l))
		}
	}
	return ls
}

// TestBisectRunBuild is acceptance 2: git bisect run kdelta bisect-run
// --build over six commits (the series' two harmless ones, one that does
// not build, its fix, the slow getppid() and one after it) between a
// good set measured on the base and a bad one on the tip ends at the
// slow commit; the commit that
// does not build is skipped (125) with its log named.
func TestBisectRunBuild(t *testing.T) {
	testKernelTools(t)
	dir := kbuildtest.Source(t)
	hs := kbuildtest.Branch(t, dir, "kdelta-bisect", kbuildtest.BisectEdits)
	// Emulated timings on a loaded machine spread widely, and two
	// boots' means drift apart by half their value: a harmless commit
	// judged against the good set alone (one degree of freedom from two
	// boots) stays undecided. As a bisection is run, the good and the
	// bad reference are both measured (the base, and the branch's tip,
	// which carries the slow getppid()), three boots each, and a step
	// is judged by which of the two its interval lies nearer to. A step
	// may take eight boots (--max-runs 40): the session noise of
	// emulated boots on a busy host is some ±30%, and the slow commit's
	// interval over four boots still straddled the midpoint.
	run := []string{"--", "run", "syscall:calls=200000", "-r", "5", "--warmup", "1"}
	measure := func(rev string) string {
		t.Helper()
		out := t.TempDir()
		if stdout, _, err := kdeltaBuilt(t, append([]string{"vm", "--kernel", "git:" + dir + "@" + rev,
			"--config", "tinyconfig", "--accel", "tcg", "--boots", "3", "--timeout", "10m", "-o", out}, run...)...); err != nil {
			t.Fatalf("the set of %s: %v\n%s", rev, err, stdout)
		}
		sets, _ := filepath.Glob(filepath.Join(out, "*.json"))
		if len(sets) != 1 {
			t.Fatalf("the set files of %s: %v", rev, sets)
		}
		return sets[0]
	}
	good, bad := measure(kbuildtest.BaseTag), measure("kdelta-bisect")
	// git bisect runs in the test's repository and is reset at the end.
	kbuildtest.Git(t, dir, "bisect", "reset")
	kbuildtest.Git(t, dir, "bisect", "start", "kdelta-bisect", kbuildtest.BaseTag)
	defer kbuildtest.Git(t, dir, "bisect", "reset")
	script := filepath.Join(t.TempDir(), "step.sh")
	body := "#!/bin/sh\nexec env XDG_CACHE_HOME=" + t.TempDir() + " XDG_DATA_HOME=" + t.TempDir() + " KDELTA_STORE= " +
		kbuild.CacheEnv + "=" + kbuildtest.BuildCache() + " " + staticKdelta(t) +
		" bisect-run --build --config tinyconfig --good " + good + " --bad " + bad + " --workload syscall:calls=200000 -r 5 --max-runs 40\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	// The commit that does not build, checked out: 125, the log named.
	kbuildtest.Git(t, dir, "checkout", "-q", "--detach", hs[2])
	step := exec.Command(script)
	step.Dir = dir
	sb, err := step.CombinedOutput()
	t.Logf("bisect-run --build at %s:\n%s", kbuildtest.Short(hs[2]), sb)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 {
		t.Errorf("bisect-run --build of a commit that does not build: %v, want exit 125", err)
	}
	if !strings.Contains(string(sb), "does not build") || !strings.Contains(string(sb), "build.log") || !strings.Contains(string(sb), "#error") {
		t.Errorf("bisect-run --build does not say the commit does not build, why, and where the log is")
	}
	kbuildtest.Git(t, dir, "checkout", "-q", "master")
	cmd := exec.Command("git", "-C", dir, "bisect", "run", script)
	b, err := cmd.CombinedOutput()
	log := string(b)
	t.Logf("git bisect run:\n%s", log)
	if err != nil {
		t.Fatalf("git bisect run: %v", err)
	}
	if !strings.Contains(log, hs[4]+" is the first bad commit") {
		t.Errorf("bisect did not end at the slow commit %s", hs[4])
	}
	if strings.Contains(log, "does not build") && !strings.Contains(log, "build.log") {
		t.Errorf("a commit that does not build without its log named")
	}
}

// TestRootFSHost is acceptance 3 at a smaller size: with --rootfs host the
// built kernel's guest runs the host's perf (stat -- perf bench sched
// messaging) and stress-ng (a command: workload) inside, and their
// fingerprint is the built kernel's.
func TestRootFSHost(t *testing.T) {
	testKernelTools(t)
	testenv.NeedCommand(t, "perf", "linux-perf")
	testenv.NeedCommand(t, "stress-ng", "stress-ng")
	dir := kbuildtest.Source(t)
	base := kbuildtest.Git(t, dir, "rev-parse", kbuildtest.BaseTag+"^{commit}")
	for _, job := range [][]string{
		{"stat", "-r", "2", "--", "perf", "bench", "sched", "messaging", "-g", "1", "-l", "10"},
		{"run", `command:cmd=stress-ng --kill 1 --kill-ops 2000`, "-r", "1", "--warmup", "0"},
	} {
		out := t.TempDir()
		stdout, _, err := kdeltaBuilt(t, append([]string{"vm", "--kernel", "git:" + dir + "@" + kbuildtest.BaseTag,
			"--config", "tinyconfig", "--accel", "tcg", "--rootfs", "host", "--timeout", "10m", "-o", out, "--"}, job...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", job, err, stdout)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.json"))
		if len(files) != 1 {
			t.Fatalf("result files %v", files)
		}
		s, err := result.Load(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if s.Env == nil || s.Env.Kernel.Release.Value != "6.1.192-g"+kbuildtest.Short(base) {
			t.Errorf("%v: the fingerprint is not the built kernel's", job)
		}
		ok := 0
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				if r.Status == result.StatusOK && !r.Warmup {
					ok++
				} else if !r.Warmup {
					t.Errorf("%v: run %s: %s", job, r.Status, r.Reason)
				}
			}
		}
		if ok == 0 {
			t.Errorf("%v: nothing measured in the guest", job)
		}
	}
}
