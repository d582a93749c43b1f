package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/testenv"
)

// exampleOverrides make each shipped job small enough for a test: one or
// two runs, small parameters (a single-valued --matrix sets a parameter),
// no profile. The seed 003 jobs keep their schedstat window, which costs
// nothing when a run ends before it: see checkSchedstatWindow.
var exampleOverrides = map[string][]string{
	"000-kill-selinux.toml":           {"-r", "2", "--warmup", "0", "--matrix", "ops=300", "--matrix", "ramp=false"},
	"002-rcu-wake-from-gp.toml":       {"-r", "2", "--warmup", "0", "--matrix", "calls=3"},
	"003-hackbench-schedstat.toml":    {"-r", "1", "--warmup", "0", "--profile=false", "--matrix", "groups=1", "--matrix", "loops=20"},
	"003-pgbench-hackbench.toml":      {"-r", "1", "--warmup", "0", "--matrix", "scale=1", "--matrix", "clients=2", "--matrix", "duration=1s", "--matrix", "groups=1", "--matrix", "loops=20"},
	"004-context-switch-fifo.toml":    {"-r", "1", "--warmup", "0", "--profile=false", "--matrix", "calls=20000", "--matrix", "soak=0s", "--matrix", "switches=20000"},
	"004-syscall-ctxsw-fifo.toml":     {"-r", "1", "--warmup", "0", "--profile=false", "--matrix", "calls=20000", "--matrix", "loops=2000"},
	"sweep-messaging.toml":            {"-r", "1", "--warmup", "0", "--matrix", "groups=1,2", "--matrix", "loops=10"},
	"001-messaging-preempt-vm.toml":   nil,
	"001-messaging-preempt-live.toml": {"-r", "2", "--warmup", "0", "--matrix", "groups=1", "--matrix", "loops=20"},
	"002-rcu-smt.toml":                {"-r", "2", "--warmup", "0", "--matrix", "calls=3"},
	"002-bridge-wake-from-gp.toml":    {"-r", "2", "--warmup", "0", "--matrix", "cycles=2"},
	"002-bridge-expedited-vm.toml":    nil,
}

// TestExamples is acceptance test 5: every shipped job parses and runs
// (small). A job of kernel variants boots the test kernel with kdelta vm
// -f; a job whose knob this machine lacks (SELinux on Debian) must be
// refused as the user would see it: exit 2 and one line naming the knob.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".toml"), func(t *testing.T) {
			j, err := job.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			over, ok := exampleOverrides[name]
			if !ok {
				t.Fatalf("%s: no overrides for the test: add it to exampleOverrides", name)
			}
			for _, v := range j.Variants {
				if v.Booted() {
					runVMExample(t, f)
					return
				}
			}
			if os.Geteuid() != 0 && (j.FIFO != 0 || len(j.Variants) > 0 || len(j.Set) > 0) {
				testenv.Skip(t, "needs root (SCHED_FIFO or kernel knobs)")
			}
			ownJournal(t)
			// A knob this machine lacks (SELinux, SMT control, the debugfs
			// preemption file): the job must be refused with its reason.
			if groups := job.KnobGroups(job.Cells(j.Set, j.Variants, j.Matrix)); anyKnob(groups) {
				s, err := knob.Open(groups, knob.Options{JournalDir: t.TempDir()})
				if err != nil {
					args := []string{"ab", "-f", f, "--no-store"}
					code, stdout, stderr := kd(t, args...)
					lines := strings.Split(strings.TrimSpace(stderr), "\n")
					if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "kdelta: ") {
						t.Fatalf("%s cannot run here (%v): kdelta %s: exit %d, want 2 with one line:\n%s%s", name, err, strings.Join(args, " "), code, stdout, stderr)
					}
					t.Logf("refused as it should be here: %s", lines[0])
					return
				}
				s.Restore()
			}
			cmd := "run"
			if len(j.Variants) >= 2 {
				cmd = "ab"
			}
			args := append([]string{cmd, "-f", f, "--no-store"}, over...)
			code, stdout, stderr := kd(t, args...)
			if code != 0 {
				t.Fatalf("kdelta %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			// Variants at one point print kdelta compare's lines; a knob
			// axis, or a run with a (single-valued) matrix, the sweep table.
			want := "B vs A: "
			for _, a := range j.Matrix {
				if a.Knob != nil {
					want = "sweep: "
				}
			}
			if cmd == "run" {
				want = "sweep: "
			}
			if !strings.Contains(stdout, want) {
				t.Errorf("kdelta %s: output lacks %q:\n%s", strings.Join(args, " "), want, stdout)
			}
			checkSchedstatWindow(t, j, stdout)
		})
	}
}

// checkSchedstatWindow checks what a job with a schedstat window (seed
// 003's, 20 s in, longer than a test's small runs) says of it, once per
// workload: on a kernel built without CONFIG_SCHEDSTATS, that, from the
// fingerprint; on one with it, that each run ended before the window.
func checkSchedstatWindow(t *testing.T, j *job.Job, stdout string) {
	t.Helper()
	specs, err := counter.ParseMonitors(j.Monitors)
	if j.Monitors == "" || err != nil {
		return
	}
	for _, s := range specs {
		if s.Name != "schedstat" || s.Duration == 0 {
			continue
		}
		why := "the run ended before the window did"
		fp := sysinfo.Collect(sysinfo.FS{Root: "/"}, sysinfo.Options{})
		if v, known := fp.Config.Option("CONFIG_SCHEDSTATS"); known && v == "n" {
			why = "this kernel is built without CONFIG_SCHEDSTATS (no /proc/schedstat)"
		}
		want := "\n  monitor " + s.String() + ": " + why
		if n := strings.Count(stdout, want); n != len(j.Workloads) {
			t.Errorf("%d lines %q for %d workloads:\n%s", n, want, len(j.Workloads), stdout)
		}
	}
}

func anyKnob(groups [][]knob.Setting) bool {
	for _, g := range groups {
		if len(g) > 0 {
			return true
		}
	}
	return false
}

// runVMExample runs a shipped kdelta vm -f job on the test kernel, made
// small: one run of one boot per variant, the workload's loops cut down.
// Every other key of the job (variants, appends, events, labels, the [vm]
// table) is the shipped one.
func runVMExample(t *testing.T, path string) {
	t.Helper()
	kernel := vmKernel(t)
	bin := kdeltaBinary(t)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	small := string(text)
	for _, r := range []struct {
		re, to string
		must   bool
	}{
		{`(?m)^repeat = \d+`, "repeat = 1", true},
		{`(?m)^warmup = \d+`, "warmup = 0", true},
		{`(?m)^boots = \d+`, "boots = 1", false},
		{`groups = \d+`, "groups = 1", false},
		{`loops = \d+`, "loops = 5", false},
		{`cycles = \d+`, "cycles = 2", false},
		{`calls = \d+`, "calls = 3", false},
	} {
		re := regexp.MustCompile(r.re)
		if r.must && !re.MatchString(small) {
			t.Fatalf("%s: no %s to make small", path, r.re)
		}
		small = re.ReplaceAllString(small, r.to)
	}
	dir := t.TempDir()
	jobPath := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(jobPath, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// A guest that hangs (an RCU stall of a starved TCG vCPU) fails in
	// minutes, not after kdelta vm's default half hour.
	args := []string{"vm", "-f", jobPath, "--kernel", kernel, "--no-store", "-o", out, "--timeout", "5m"}
	j, err := job.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(j.Workloads, func(w job.Workload) bool { return w.Name == "bridge" }) {
		args = append(args, "--modules", vmModules(t, kernel))
	}
	cmd := exec.Command(bin, args...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta vm -f %s: %v\n%s", jobPath, err, b)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != len(j.Variants) {
		t.Fatalf("%d result sets for %d variants: %v\n%s", len(files), len(j.Variants), files, b)
	}
	for _, f := range files {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(s.Benchmarks[0].Measured()); n != 1 {
			t.Errorf("%s: %d measured runs, want 1", f, n)
		}
		// The job's kernel functions, timed in every measured run.
		for _, b := range s.Benchmarks {
			for _, r := range b.Measured() {
				if len(r.Functions) != len(j.FuncLatency) {
					t.Errorf("%s: %s run %d timed %d functions, the job asks for %v", f, b.Workload, r.Index, len(r.Functions), j.FuncLatency)
				}
			}
		}
	}
}
