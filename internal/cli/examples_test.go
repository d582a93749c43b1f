package cli_test

import (
	"github.com/kdelta/kdelta/internal/testenv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
)

// exampleOverrides make each shipped job small enough for a test: one or
// two runs, small parameters (a single-valued --matrix sets a parameter),
// no profile and no long monitor window.
var exampleOverrides = map[string][]string{
	"000-kill-selinux.toml":           {"-r", "2", "--warmup", "0", "--matrix", "ops=300", "--matrix", "ramp=false"},
	"002-rcu-wake-from-gp.toml":       {"-r", "2", "--warmup", "0", "--matrix", "calls=3"},
	"003-hackbench-schedstat.toml":    {"-r", "1", "--warmup", "0", "--profile=false", "--monitor", "schedstat,stat", "--matrix", "groups=1", "--matrix", "loops=20"},
	"004-syscall-ctxsw-fifo.toml":     {"-r", "1", "--warmup", "0", "--profile=false", "--matrix", "calls=20000", "--matrix", "loops=2000"},
	"sweep-messaging.toml":            {"-r", "1", "--warmup", "0", "--matrix", "groups=1,2", "--matrix", "loops=10"},
	"001-messaging-preempt-vm.toml":   nil,
	"001-messaging-preempt-live.toml": {"-r", "2", "--warmup", "0", "--matrix", "groups=1", "--matrix", "loops=20"},
	"002-rcu-smt.toml":                {"-r", "2", "--warmup", "0", "--matrix", "calls=3"},
}

// TestExamples is acceptance test 5: every shipped job parses; those this
// machine can run, run (small); the others are skipped with the reason.
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
					testenv.Skipf(t, "%s boots kernels (%s: %s %s): it is a kdelta vm -f job, which needs qemu and the kernel images", name, v.Name, v.Kernel, v.Append)
				}
			}
			if os.Geteuid() != 0 && (j.FIFO != 0 || len(j.Variants) > 0 || len(j.Set) > 0) {
				testenv.Skip(t, "needs root (SCHED_FIFO or kernel knobs)")
			}
			// A knob this machine lacks (SELinux, SMT control, the debugfs
			// preemption file) is why the job cannot run here.
			if groups := job.KnobGroups(job.Cells(j.Set, j.Variants, j.Matrix)); anyKnob(groups) {
				s, err := knob.Open(groups, knob.Options{JournalDir: t.TempDir()})
				if err != nil {
					testenv.Skipf(t, "%s cannot run here: %v", name, err)
				}
				s.Restore()
			}
			ownJournal(t)
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
		})
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
