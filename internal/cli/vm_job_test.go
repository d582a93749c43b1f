package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestVMJobFile runs a job file's kernel variants (the shape of
// examples/001-messaging-preempt-vm.toml, smaller) with kdelta vm -f: each
// variant boots with its own preempt=, the guest reads its mode from
// debugfs, and the output ends with the comparison of the two variants.
func TestVMJobFile(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	kernel := vmKernel(t)
	bin := kdeltaBinary(t)
	dir := t.TempDir()
	jobPath := filepath.Join(dir, "job.toml")
	os.WriteFile(jobPath, []byte(`description = "preemption modes in qemu"
repeat = 2
warmup = 0

[[workload]]
name = "syscall"
params = { calls = 20000 }

[[variant]]
name = "none"
kernel = "vmlinuz"
append = "preempt=none"

[[variant]]
name = "full"
kernel = "vmlinuz"
append = "preempt=full"

[vm]
boots = 1
`), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "vm", "-f", jobPath, "--kernel", kernel, "--no-store", "-o", out)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kdelta vm -f: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	// The two variants end with their comparison, as kdelta ab ends:
	// compare's own text, the first variant the baseline.
	cmp := stdout.String()
	if i := strings.Index(cmp, "\nA: "); i >= 0 {
		cmp = cmp[i+1:]
	}
	for _, want := range []string{"A: cmdline=preempt=none,variant=A (baseline)\n", "B: cmdline=preempt=full,variant=B\n", "syscall  calls=20000", "\n    A n=2 ", "\n    B n=2 ", "\n      B vs A: "} {
		if !strings.Contains(cmp, want) {
			t.Errorf("the output does not end with the comparison of the variants (no %q):\n%s", want, stdout.String())
			break
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	sort.Strings(files)
	if len(files) != 2 {
		t.Fatalf("result sets: %v, want 2", files)
	}
	modes := map[string]string{}
	for _, f := range files {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(s.Benchmarks[0].Measured()); n != 2 {
			t.Errorf("%s: %d measured runs, want 2", f, n)
		}
		modes[s.Labels["cmdline"]] = s.Env.Preempt.Mode.Value + " from " + s.Env.Preempt.Mode.Source
	}
	for cmdline, want := range map[string]string{"preempt=none": "none", "preempt=full": "full"} {
		if got := modes[cmdline]; got != want+" from debugfs" && got != want+" from debugfs (/sys/kernel/debug/sched/preempt)" {
			t.Errorf("variant %s: guest mode %q, want %s read in the guest's debugfs", cmdline, got, want)
		}
	}
}
