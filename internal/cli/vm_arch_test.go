package cli_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// foreignArches are the Debian kernels the cross-architecture tests boot,
// by metapackage (the current build of each flavour), with what the
// guest's fingerprint must say of itself.
var foreignArches = []struct {
	arch, qemu, pkg, meta, uname, cpu string
}{
	{"ppc64le", "qemu-system-ppc64", "qemu-system-ppc", "linux-image-powerpc64le", "ppc64le", "POWER"},
	{"arm64", "qemu-system-aarch64", "qemu-system-arm", "linux-image-cloud-arm64", "aarch64", ""},
	{"s390x", "qemu-system-s390x", "qemu-system-misc", "linux-image-s390x", "s390x", "IBM"},
}

// TestVMForeignArch is issue 21's acceptance 1 and 2: a Debian kernel of
// each architecture our users run, fetched by package, boots under TCG
// with kdelta (built for it) as /init, runs syscall, kill, rcu,
// messaging and pipe, and
// brings home a set whose fingerprint is the guest's own: its
// architecture and CPU, the build's preemption mode (voluntary: these
// kernels have no PREEMPT_DYNAMIC) and no PREEMPT_RCU. On ppc64le two
// command lines boot, preempt=none and preempt=full: the second is the
// seed 000 trap, said in the fingerprint, and the comparison leads with
// both modes being the same.
func TestVMForeignArch(t *testing.T) {
	// A guest of its own, beside the other vm tests' boots. Its subtests
	// stay one after another (each may add an architecture to apt), and
	// TestVMForeignArchPanics, which adds ppc64el too, is not parallel:
	// it has run before any parallel test starts.
	t.Parallel()
	testenv.NeedRoot(t, "kdelta vm --kernel deb: adds the architecture to apt and fetches its package")
	testenv.NeedCommand(t, "apt-get", "apt")
	bin := kdeltaBinary(t)
	for _, a := range foreignArches {
		t.Run(a.arch, func(t *testing.T) {
			testenv.NeedCommand(t, a.qemu, a.pkg)
			dir := t.TempDir()
			args := []string{"vm", "--kernel", "deb:" + a.meta, "--no-store", "-o", dir}
			if a.arch == "ppc64le" {
				args = append(args, "--append", "preempt=none", "--append", "preempt=full")
			}
			// messaging and pipe in process mode fork lean (sys.ForkArena):
			// the trampoline of each architecture on its own kernel.
			args = append(args, "--", "run", "syscall:calls=20000", "kill:ops=200", "rcu:calls=5",
				"messaging:groups=1,fds=2,loops=20", "pipe:loops=2000", "-r", "2", "--warmup", "0")
			cmd := exec.Command(bin, args...)
			cmd.Dir = filepath.Join("..", "..") // kdelta's source tree: the guest binary is built there
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("kdelta %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			sets, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if want := map[bool]int{true: 2, false: 1}[a.arch == "ppc64le"]; len(sets) != want {
				t.Fatalf("%d result sets, want %d\n%s", len(sets), want, out)
			}
			for _, p := range sets {
				s, err := result.Load(p)
				if err != nil {
					t.Fatal(err)
				}
				env := s.Env
				if env == nil || env.Arch.Value != a.uname || !strings.Contains(env.CPU.Model.Value+" "+env.CPU.Machine.Value, a.cpu) {
					t.Errorf("%s: fingerprint arch %+v, CPU %q %q; want %s, %q", filepath.Base(p), env.Arch, env.CPU.Model.Value, env.CPU.Machine.Value, a.uname, a.cpu)
					continue
				}
				if env.Preempt.Mode.Value != "voluntary" || env.PreemptRCU.Value != "n" {
					t.Errorf("%s: preemption %+v, PREEMPT_RCU %+v; want voluntary and n", filepath.Base(p), env.Preempt.Mode, env.PreemptRCU)
				}
				if s.Labels["accel"] != "tcg" || !strings.HasPrefix(s.Labels["kernel_package"], "linux-image-") {
					t.Errorf("%s: labels %v", filepath.Base(p), s.Labels)
				}
				for _, b := range s.Benchmarks {
					if n := len(b.Measured()); n != 2 {
						t.Errorf("%s: %s has %d measured runs (%s), want 2", filepath.Base(p), b.Workload, n, b.Skipped)
					}
				}
				trap := strings.Join(env.Ignored, "\n")
				if full := s.Labels["cmdline"] == "preempt=full"; full != strings.Contains(trap, "preempt=full on the command line is ignored: this kernel has no PREEMPT_DYNAMIC; the mode is the build's (voluntary)") {
					t.Errorf("%s (cmdline %q): ignored parameters %q", filepath.Base(p), s.Labels["cmdline"], env.Ignored)
				}
			}
			if a.arch == "ppc64le" && !strings.Contains(string(out), "both voluntary: the command lines differ but the kernels do not") {
				t.Errorf("the comparison of preempt=none and preempt=full does not say both are voluntary:\n%s", out)
			}
		})
	}
}

// TestVMForeignArchPanics is issue 21's acceptance 4: a ppc64le guest
// that panics (its /init cannot be found) fails the command with the
// console's last lines, and no qemu is left behind.
func TestVMForeignArchPanics(t *testing.T) {
	testenv.NeedRoot(t, "kdelta vm --kernel deb: adds the architecture to apt and fetches its package")
	a := foreignArches[0]
	testenv.NeedCommand(t, a.qemu, a.pkg)
	cmd := exec.Command(kdeltaBinary(t), "vm", "--kernel", "deb:"+a.meta, "--append", "rdinit=/no-such-init", "--no-store", "--timeout", "3m",
		"--", "run", "syscall:calls=1000", "-r", "1", "--warmup", "0")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a guest without its /init succeeded:\n%s", out)
	}
	text := string(out)
	if !strings.Contains(text, "console:") || !strings.Contains(text, "Kernel panic") {
		t.Errorf("the failure does not carry the console's last lines with the panic:\n%s", text)
	}
	if ps, _ := exec.Command("pgrep", "-f", a.qemu+".*rdinit=/no-such-init").Output(); len(strings.TrimSpace(string(ps))) > 0 {
		t.Errorf("qemu left behind: %s", ps)
	}
}
