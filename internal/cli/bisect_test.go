package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// busyLoop is the measured thing of the bisection tests: a shell busy loop
// of 20,000 iterations, N times longer when the file named by its argument
// holds N (0 means 1), which prints the CPU time the shell used, read from
// /proc/self/schedstat in nanoseconds. CPU time rather than wall time,
// because tests share the machine: another process competing for the CPU
// stretches the wall time of a run, not the CPU time of its fixed work.
const busyLoop = `read n < "$1"
[ "$n" -gt 0 ] || n=1
m=$((20000 * n)); i=0
while [ $i -lt $m ]; do i=$((i+1)); done
read t rest < /proc/$$/schedstat
echo "cpu_ns $t"
`

// busySpec writes the busy loop beside slow and returns the workload spec
// that runs it.
func busySpec(t *testing.T, dir, slow string) string {
	t.Helper()
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		testenv.Skipf(t, "no /proc/self/schedstat (CONFIG_SCHED_INFO off?): %v", err)
	}
	script := filepath.Join(dir, "busy.sh")
	if err := os.WriteFile(script, []byte(busyLoop), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`command:cmd='sh %s %s',regex=cpu_ns (\d+),unit=ns`, script, slow)
}

// runKdelta runs the command line in-process and returns its exit status and
// output.
func runKdelta(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestBisectRunFindsCommit is acceptance test 4: a git history of ten
// commits whose file slow holds 0 before commit 7 and 4 from commit 7 on,
// so the busy loop runs four times longer from there; good.json is
// measured at commit 1, and the real git bisect run, calling kdelta
// bisect-run --good good.json at every step, must name commit 7.
func TestBisectRunFindsCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Skipf(t, "git not installed: %v", err)
	}
	if _, err := exec.LookPath("kdelta"); err != nil {
		testenv.Skipf(t, "the test binary is not on $PATH as kdelta (testscript sets it up): %v", err)
	}
	const commits, first = 10, 7
	dir := t.TempDir()
	// The store of this test, for kdelta here and in git's steps.
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(repo, "slow")
	spec := busySpec(t, dir, slow)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=kdelta", "GIT_AUTHOR_EMAIL=kdelta@example.org",
			"GIT_COMMITTER_NAME=kdelta", "GIT_COMMITTER_EMAIL=kdelta@example.org")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	hashes := make([]string, commits+1)
	for i := 1; i <= commits; i++ {
		n := "0"
		if i >= first {
			n = "4"
		}
		// The second line makes every commit change the file.
		if err := os.WriteFile(slow, []byte(fmt.Sprintf("%s\ncommit %d\n", n, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "slow")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		hashes[i] = strings.TrimSpace(git("rev-parse", "HEAD"))
	}

	git("checkout", "-q", hashes[1])
	good := filepath.Join(dir, "good.json")
	if code, _, stderr := runKdelta("run", spec, "-r", "10", "--counters", "none", "--monitor", "none", "-o", good); code != 0 {
		t.Fatalf("measuring good: exit %d: %s", code, stderr)
	}

	step := filepath.Join(dir, "step.sh")
	// The noise band is wide because the step is +300% and tests share a
	// busy machine, where the CPU time of the same loop has moved by a
	// quarter between two measurements a second apart (the host's other
	// vCPUs share its caches and cores). Each step keeps its measured set,
	// decision and evidence included.
	stepScript := fmt.Sprintf("#!/bin/sh\nexec kdelta bisect-run --good %s --metric value --threshold 100%% --max-runs 30 -o %s/step-$(git rev-parse --short HEAD).json\n", good, dir)
	if err := os.WriteFile(step, []byte(stepScript), 0o755); err != nil {
		t.Fatal(err)
	}
	git("bisect", "start", hashes[commits], hashes[1])
	out := git("bisect", "run", step)
	t.Logf("git bisect run:\n%s", out)
	m := regexp.MustCompile(`(?m)^([0-9a-f]{40}) is the first bad commit`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("git bisect run named no first bad commit")
	}
	if m[1] != hashes[first] {
		t.Errorf("first bad commit %s, want %s (commit %d)", m[1], hashes[first], first)
	}
	// The decisions were recorded with their evidence, in the files and
	// in the store.
	steps, _ := filepath.Glob(filepath.Join(dir, "step-*.json"))
	if len(steps) == 0 {
		t.Fatal("no step result sets written")
	}
	for _, p := range steps {
		s, err := result.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		d := s.Labels["bisect"]
		if d != "good" && d != "bad" && d != "skip" || !strings.Contains(strings.Join(s.Warnings, "\n"), "bisect-run: "+d) {
			t.Errorf("%s: label bisect=%q, warnings %q: want the decision and its evidence", p, d, s.Warnings)
		}
	}
	st, err := store.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bads, err := st.List(context.Background(), store.Filter{Labels: []store.Label{{Name: "bisect", Value: "bad"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bads) == 0 {
		t.Fatal("no set labelled bisect=bad in the store")
	}
	s, err := st.Get(context.Background(), bads[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "bisect-run: bad: ") || s.Labels["bisect.good"] != good {
		t.Errorf("stored decision: labels %v, warnings %q; want the evidence and the good reference", s.Labels, s.Warnings)
	}
}

// TestBisectRunDecisions checks each answer of bisect-run against result
// sets made from one real measurement of the busy loop: good and bad sets
// at the measured level and four times it, and a good set too spread out
// to decide against.
func TestBisectRunDecisions(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	slow := filepath.Join(dir, "slow")
	if err := os.WriteFile(slow, []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := busySpec(t, dir, slow)
	base := filepath.Join(dir, "base.json")
	if code, _, stderr := runKdelta("run", spec, "-r", "5", "--warmup", "0", "--counters", "none", "--monitor", "none", "-o", base); code != 0 {
		t.Fatalf("measuring: exit %d: %s", code, stderr)
	}
	// scaled writes the base set with its values multiplied by factors,
	// cycling through them run by run.
	scaled := func(name string, factors ...float64) string {
		s, err := result.Load(base)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				f := factors[k%len(factors)]
				k++
				for m := range r.Values {
					r.Values[m] *= f
				}
			}
		}
		p := filepath.Join(dir, name)
		if err := result.Save(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same, slower := scaled("same.json", 1), scaled("x4.json", 4)
	faster := scaled("x025.json", 0.25)
	spread := scaled("spread.json", 0.3, 3, 0.5, 2, 1)
	tests := []struct {
		name string
		args []string
		code int
		want string
		// stderr, when set, must match stderr.
		stderr string
	}{
		{"like good", []string{"--good", same, "--threshold", "100%"}, 0, `bisect-run: good: .* value: .* vs good, \d+ runs × 1 session( each| vs \d+ runs × 1 session), session noise ±10\.0% assumed for a virtual machine: kdelta calibrate measures this host's: within ±100% of good`, ""},
		{"4x good", []string{"--good", faster, "--threshold", "100%"}, 1, `bisect-run: bad: .* regressed from good beyond ±100%`, ""},
		{"like good, with bad", []string{"--good", same, "--bad", slower}, 0, `closer to good: the interval is on good's side of the midpoint \+100% of the step to bad \(\+300%\)`, ""},
		{"like bad", []string{"--good", faster, "--bad", same}, 1, `closer to bad: the interval is on bad's side of the midpoint`, ""},
		{"cannot tell", []string{"--good", spread, "-r", "3", "--max-runs", "6"}, 125, `bisect-run: skip \(cannot tell after --max-runs 6\): .* (5 runs × 1 session vs 6 runs × 1 session|6 runs × 1 session vs 5 runs × 1 session)`, ""},
		{"bad no worse than good", []string{"--good", same, "--bad", same, "--threshold", "100%"}, 0, `within ±100% of good`, `bad is not worse than good \(\+0\.00% .*, ~\): good alone decides`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"bisect-run", "--metric", "value", "--warmup", "0"}, tt.args...)
			code, stdout, stderr := runKdelta(args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			if !regexp.MustCompile(tt.want).MatchString(stdout) {
				t.Errorf("stdout does not match %q:\n%s", tt.want, stdout)
			}
			if tt.stderr != "" && !regexp.MustCompile(tt.stderr).MatchString(stderr) {
				t.Errorf("stderr does not match %q:\n%s", tt.stderr, stderr)
			}
			if !strings.Contains(stdout, fmt.Sprintf("(exit %d)", tt.code)) {
				t.Errorf("no final decision line with exit %d:\n%s", tt.code, stdout)
			}
		})
	}
}

// TestBisectRunUsage checks that every usage error exits 2, never 1 (bad)
// or 125 (skip), with one line naming the flag.
func TestBisectRunUsage(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	good := filepath.Join(dir, "good.json")
	if code, _, stderr := runKdelta("run", "syscall:calls=1000", "-r", "1", "--warmup", "0", "--counters", "none", "--monitor", "none", "-o", good); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "--good is required"},
		{[]string{"--good", filepath.Join(dir, "missing.json")}, "--good: open " + dir},
		{[]string{"--good", good, "--bad", filepath.Join(dir, "missing.json")}, "--bad: open"},
		{[]string{"--good", good, "--threshold", "x"}, `--threshold: bad value "x"`},
		{[]string{"--good", good, "--alpha", "2"}, "--alpha 2 is not in (0, 1)"},
		{[]string{"--good", good, "-r", "6", "--max-runs", "5"}, "--max-runs: 5 is fewer than -r 6"},
		{[]string{"--good", good, "-r", "0"}, "-r/--repeat: must be at least 1"},
		{[]string{"--good", good, "--metric", "nosuch"}, `--metric: workload syscall has no metric "nosuch" (it has ns/call, calls/s)`},
		{[]string{"--good", good, "--workload", "nosuch"}, `--workload: unknown workload "nosuch"`},
		{[]string{"--good", good, "--workload", "pipe"}, "--good " + good + ": no benchmark matches pipe:"},
		{[]string{"--good", good, "--cpus", "4000"}, "--cpus: CPU 4000 is not available here"},
		{[]string{"--good", good, "extra"}, `unknown command "extra"`},
	}
	for _, tt := range tests {
		code, _, stderr := runKdelta(append([]string{"bisect-run"}, tt.args...)...)
		if code != 2 {
			t.Errorf("bisect-run %v: exit %d, want 2", tt.args, code)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("bisect-run %v: stderr %q, want one line containing %q", tt.args, stderr, tt.want)
		}
	}
}

// pinnedRun runs spec 5 times into the set file out, pinned to this
// process's last CPU under SCHED_FIFO 50 with no counters or monitors,
// and returns those flags, extra among them, for the runs to follow.
func pinnedRun(t *testing.T, spec, out string, extra ...string) []string {
	t.Helper()
	allowed, err := sys.Affinity(0)
	if err != nil {
		t.Fatal(err)
	}
	pin := append([]string{"--fifo", "50", "--cpus", sys.FormatCPUList(allowed[len(allowed)-1:]), "--counters", "none", "--monitor", "none"}, extra...)
	if code, _, stderr := runKdelta(append([]string{"run", spec, "-r", "5", "-o", out}, pin...)...); code != 0 {
		if strings.Contains(stderr, "--fifo") {
			testenv.Skipf(t, "SCHED_FIFO not allowed here: %s", stderr)
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return pin
}

// TestRunUntilConclusive checks kdelta run --until-conclusive: against a
// baseline measured just before on this machine it stops with ~ or at
// --max-runs; against the same baseline with its times doubled (or halved)
// it stops improved (or regressed) within --max-runs: by the fifth run on
// a quiet machine; on a loaded host (a CV of 15–17% under FIFO, sessions
// ±14–19% apart) two CI runs needed 12 and more than 12, hence 24.
//
// The runs are pinned to one CPU under SCHED_FIFO, so that the other
// processes of a shared machine cannot stretch them: without it, the
// null-syscall loop's time here varied by 40% from run to run, and by 10%
// between two sets a second apart, which is a real change of the machine
// that a 1% band rightly calls.
func TestRunUntilConclusive(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	const spec = "syscall:calls=20000"
	base := filepath.Join(dir, "base.json")
	pin := pinnedRun(t, spec, base)
	planted := func(name string, f float64) string {
		s, err := result.Load(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range s.Benchmarks {
			for _, r := range b.Runs {
				r.Values["ns/call"] *= f
				r.Values["calls/s"] /= f
			}
		}
		p := filepath.Join(dir, name)
		if err := result.Save(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		baseline string
		want     string
	}{
		{"same machine", base, `(stopped after \d+ runs: ~|reached --max-runs 24: inconclusive.*|stopped after \d+ runs: inconclusive \(the change is far below (this host's noise|the session noise assumed)\))`},
		{"baseline 2x slower", planted("slow.json", 2), `stopped after ([5-9]|1\d|2[0-4]) runs: improved`},
		{"baseline 2x faster", planted("fast.json", 0.5), `stopped after ([5-9]|1\d|2[0-4]) runs: regressed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.json")
			code, stdout, stderr := runKdelta(append([]string{"run", spec, "-r", "5",
				"--until-conclusive", "--baseline", tt.baseline, "--max-runs", "24", "-o", out}, pin...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			const head = `(?m)^until-conclusive: syscall calls=20000,soak=0s,syscall=getppid: `
			// The runs are recorded, and from three A/A sets on the
			// store knows the host's session noise (calibrate.Learn):
			// then the verdict is one across sessions, and says so.
			const tail = ` \(ns/call .* vs baseline, (5 runs|5 runs × 1 session (each|vs [^,]+), session noise ±\d+\.\d%( assumed for a [a-z ]+: kdelta calibrate measures this host's)?)\)$`
			s, err := result.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			n := len(s.Benchmarks[0].Measured())
			if !s.Complete || n < 5 || n > 24 {
				t.Errorf("saved set: complete %v, %d runs", s.Complete, n)
			}
			re := regexp.MustCompile(head + tt.want + tail)
			if re.MatchString(stdout) {
				return
			}
			// A verdict in an A/A comparison is either the stopping rule
			// erring (TestUntilConclusiveErrorRate bounds how often) or
			// the machine changing between the baseline and the run, which
			// happens on a shared VM whatever the pinning. The stop itself
			// must still agree with the evidence it prints.
			stop := regexp.MustCompile(head + fmt.Sprintf(`stopped after %d runs: (improved|regressed)`, n) + tail)
			if tt.baseline == base && stop.MatchString(stdout) {
				// The stop agrees with the evidence it printed, which is
				// what this case checks when the machine moved.
				t.Logf("baseline and run differ beyond the 1%% band (the machine changed between them); the stop agrees with its evidence:\n%s", stdout)
				return
			}
			t.Fatalf("stdout does not match %s:\n%s", re, stdout)
		})
	}
	for _, args := range [][]string{
		{"--until-conclusive"},
		{"--baseline", base},
		{"--max-runs", "9"},
		{"--until-conclusive", "--baseline", base, "--max-runs", "2"},
		{"--until-conclusive", "--baseline", filepath.Join(dir, "missing.json")},
		{"--until-conclusive", "--baseline", base, "pipe"},
	} {
		all := append([]string{"run", spec, "-r", "3", "--counters", "none", "--monitor", "none"}, args...)
		if args[len(args)-1] == "pipe" {
			all = append([]string{"run", "pipe", "-r", "3", "--counters", "none", "--monitor", "none"}, args[:len(args)-1]...)
		}
		code, _, stderr := runKdelta(all...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("kdelta %v: exit %d, stderr %q; want 2 and a message naming the flag", all, code, stderr)
		}
	}
}
