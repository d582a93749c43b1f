package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/kdelta/kdelta/internal/cli"
	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

func profileCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestRunProfile is acceptance 1: kdelta run syscall --profile -r 3 keeps
// three measured runs and one profiled run whose top kernel symbols hold
// the syscall entry path; then every profile command reads the result.
func TestRunProfile(t *testing.T) {
	if err := kprofile.Check(kprofile.Options{}); err != nil {
		testenv.Skipf(t, "perf cannot record here: %v", err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := profileCmd(t, "run", "syscall:calls=2000000", "--profile", "-r", "3", "-o", out, "--no-store")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	set, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	b := set.Benchmarks[0]
	if len(b.Measured()) != 3 || len(b.Profiles) != 1 {
		t.Fatalf("%d measured runs, %d profiles; want 3 and 1", len(b.Measured()), len(b.Profiles))
	}
	p := b.Profiles[0]
	if p.Unavailable != "" || p.Run == nil || p.Ops != 2000000 {
		t.Fatalf("profile: unavailable %q, run %v, ops %v", p.Unavailable, p.Run, p.Ops)
	}
	var kernel []string
	for _, s := range p.Symbols {
		if s.Kernel && len(kernel) < 5 {
			kernel = append(kernel, s.Symbol)
		}
	}
	// The system call's path: its entry, or the getppid handler where the
	// entry is a hypervisor's (a PVM guest enters through pvm_* code,
	// whose share goes to pvm_irq_enable: CI saw [pvm_irq_enable
	// __task_pid_nr_ns __raw_callee_save_pvm_irq_enable __rcu_read_unlock
	// __x64_sys_getppid], and once without the handler: getppid's own work is
	// __task_pid_nr_ns, which always ranked second).
	entry := false
	for _, s := range kernel {
		entry = entry || s == "do_syscall_64" || strings.HasPrefix(s, "entry_SYSCALL_64") || s == "x64_sys_call" ||
			strings.HasSuffix(s, "sys_getppid") || s == "__task_pid_nr_ns"
	}
	if !entry {
		t.Errorf("top kernel symbols %v hold neither the syscall entry nor getppid's handler or work", kernel)
	}
	if !strings.Contains(stdout, "profiles (extra runs, not in the statistics above)") || !strings.Contains(stdout, kernel[0]) {
		t.Errorf("run output does not show the profile:\n%s", stdout)
	}

	code, stdout, stderr = profileCmd(t, "profile", "show", out, "--format", "json")
	var shown []map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &shown) != nil || len(shown) != 1 {
		t.Errorf("profile show --format json: exit %d, %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = profileCmd(t, "profile", "diff", out, out)
	if code != 0 || !strings.Contains(stdout, "+0.00") || !strings.Contains(stdout, "per operation") {
		t.Errorf("profile diff of a set with itself: exit %d\n%s%s", code, stdout, stderr)
	}
	pb := filepath.Join(dir, "r.pb.gz")
	if code, _, stderr = profileCmd(t, "profile", "pprof", out, "-o", pb); code != 0 {
		t.Fatalf("profile pprof: exit %d: %s", code, stderr)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pp, err := profile.Parse(f); err != nil || len(pp.Sample) == 0 {
		t.Errorf("pprof file: %v, %v", pp, err)
	}
	code, stdout, stderr = profileCmd(t, "compare", out, out, "--profile")
	if code != 0 || !strings.Contains(stdout, "profiles: "+out+" vs "+out) {
		t.Errorf("compare --profile: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestProfileDiffSeed004 diffs seed mail 004's two tables from the command
// line, as files and as one mail holding both.
func TestProfileDiffSeed004(t *testing.T) {
	td := filepath.Join("..", "profile", "testdata")
	before, after := filepath.Join(td, "seed004-before.txt"), filepath.Join(td, "seed004-after.txt")
	code, stdout, stderr := profileCmd(t, "profile", "diff", before, after)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	var first string
	for i, l := range lines {
		if strings.Contains(l, "Symbol") && i+1 < len(lines) {
			first = lines[i+1]
			break
		}
	}
	if !strings.Contains(first, "__task_pid_nr_ns") || !strings.Contains(first, "33,275") || !strings.Contains(first, "23,872") {
		t.Errorf("first row %q, want __task_pid_nr_ns with 33,275 -> 23,872 samples", first)
	}
	if !strings.Contains(stdout, "below 2.54% in B") {
		t.Errorf("__rcu_read_lock not marked below the cut-off:\n%s", stdout)
	}
	mail := filepath.Join(t.TempDir(), "mail.txt")
	b1, _ := os.ReadFile(before)
	b2, _ := os.ReadFile(after)
	os.WriteFile(mail, []byte("Without the serie:\n\n"+string(b1)+"\nWith the serie:\n\n"+string(b2)), 0o644)
	code, stdout2, stderr := profileCmd(t, "profile", "diff", mail)
	if code != 0 || !strings.Contains(stdout2, first) {
		t.Errorf("one file with both tables: exit %d, %s\n%s", code, stderr, stdout2)
	}
}

func TestProfileErrors(t *testing.T) {
	td := filepath.Join("..", "profile", "testdata")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"profile", "diff", filepath.Join(td, "seed004-before.txt")}, "needs exactly two tables"},
		{[]string{"profile", "show", filepath.Join(td, "seed004-before.txt"), "--format", "html"}, "--format: unknown format"},
		{[]string{"profile", "diff", filepath.Join(td, "seed004-before.txt"), filepath.Join(td, "seed004-after.txt"), "--by", "size"}, "--by: unknown order"},
		{[]string{"profile", "pprof", filepath.Join(td, "seed004-before.txt")}, "-o/--output is required"},
		{[]string{"run", "syscall:calls=1000", "--profile-runs", "2", "-r", "1", "--no-store"}, "--profile-runs: needs --profile"},
		{[]string{"profile", "show", filepath.Join(td, "README.md")}, "README.md:3: not a perf script sample"},
	} {
		code, _, stderr := profileCmd(t, tc.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %d and one line with %q", tc.args, code, stderr, cli.ExitUsage, tc.msg)
		}
	}
}

// TestProfileAfterSoak is issue 14's "a --profile of syscall:soak=250ms
// has no soak frames": the soak spins before the go-ahead, where neither
// the counters nor perf record look, so a quarter second of busy loop
// beside 0.4 s of syscalls leaves no sample in it (32% of them when it
// spun after the go-ahead).
func TestProfileAfterSoak(t *testing.T) {
	if err := kprofile.Check(kprofile.Options{}); err != nil {
		testenv.Skipf(t, "perf cannot record here: %v", err)
	}
	// The built binary, whose symbols perf can name (a test binary's it
	// leaves as addresses).
	out := filepath.Join(t.TempDir(), "r.json")
	if msg, err := exec.Command(kdeltaBinary(t), "run", "syscall:calls=2000000,soak=250ms", "--profile", "-r", "1", "--warmup", "0",
		"-o", out, "--no-store").CombinedOutput(); err != nil {
		t.Fatalf("kdelta run: %v: %s", err, msg)
	}
	set, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	b := set.Benchmarks[0]
	if len(b.Profiles) != 1 || len(b.Profiles[0].Symbols) == 0 {
		t.Fatalf("%d profiles, no symbols", len(b.Profiles))
	}
	loop := false
	for _, s := range b.Profiles[0].Symbols {
		if strings.Contains(s.Symbol, "workload.soak") {
			t.Errorf("the profile samples the soak: %s %.1f%%", s.Symbol, s.Overhead)
		}
		loop = loop || strings.Contains(s.Symbol, "nullLoop") || strings.Contains(s.Symbol, "NullLoop") || strings.Contains(s.Symbol, "rawsys6")
	}
	if !loop {
		t.Errorf("the profile does not sample the measured loop either: %v", b.Profiles[0].Symbols)
	}
}
