package vm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// msrError is what qemu says before it aborts on a host whose nested KVM
// refuses the vCPU's IA32_ARCH_CAPABILITIES (issue 12).
const msrError = "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69"

// abortingQemu writes a stand-in qemu-system-x86_64 into a directory of
// its own: it aborts, after qemu's MSR error, whenever it is asked for
// KVM, and runs the real qemu otherwise. Every call appends the
// accelerator it was asked for (kvm or tcg) to the returned log.
func abortingQemu(t *testing.T) (dir, calls string) {
	t.Helper()
	real, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	calls = filepath.Join(dir, "calls")
	script := `#!/bin/sh
accel=tcg
for a; do
	case "$a" in
	kvm|accel=kvm*|*,accel=kvm*|-enable-kvm) accel=kvm ;;
	esac
done
echo "$accel" >>'` + calls + `'
if [ "$accel" = kvm ]; then
	echo '` + msrError + `' >&2
	ulimit -c 0
	kill -ABRT $$
fi
exec '` + real + `' "$@"
`
	if err := os.WriteFile(filepath.Join(dir, "qemu-system-x86_64"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, calls
}

// fallbackLine is the one line auto prints when it gives up KVM: for the
// stand-in's abort when KVM can create a VM here, else the line that no
// KVM is usable (and the stand-in is asked for TCG only).
func fallbackLine(t *testing.T) string {
	if err := sys.KVMCreateVM(); err != nil {
		t.Logf("KVM cannot create a VM here (%v): auto goes to TCG before any boot, so the stand-in's abort is not reached", err)
		return "kdelta: vm: no usable KVM"
	}
	return "kdelta: vm: KVM did not start the kernel: " + msrError + " (qemu: signal: aborted); falling back to TCG"
}

func countLines(s, prefix string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// TestKVMAbortFallsBack boots under --accel auto with a qemu whose KVM
// aborts before the guest says anything: the first boot goes again under
// TCG at once (no deadline), the second boot stays with TCG, the fallback
// is said once with qemu's line, the set is labelled accel=tcg, and the
// failure is remembered, so that the next session goes to TCG before any
// boot.
func TestKVMAbortFallsBack(t *testing.T) {
	kernel := kernelLink(t, testKernel(t))
	bin := staticKdelta(t)
	dir, calls := abortingQemu(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	job, err := ParseJob([]string{"run", "syscall:calls=20000", "-r", "1", "--warmup", "0"})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	qemu := filepath.Join(dir, "qemu-system-x86_64")
	start := time.Now()
	sets, err := Run(context.Background(), &Options{
		Variants: []Variant{{Kernel: kernel}}, Boots: 2, CPUs: 2, Accel: "auto",
		Job: job, Timeout: 3 * time.Minute, Binary: bin, Qemu: qemu, Log: &log,
		// A deadline no boot may reach: the abort must be taken as it
		// happens, not when the deadline passes.
		BootDeadline: 10 * time.Minute,
	})
	t.Logf("two boots, %.1f s:\n%s", time.Since(start).Seconds(), log.String())
	checkNoQemu(t, kernel)
	if err != nil {
		t.Fatal(err)
	}
	want := fallbackLine(t)
	if n := countLines(log.String(), want); n != 1 {
		t.Errorf("%d lines %q in the log, want 1:\n%s", n, want, log.String())
	}
	if n := strings.Count(log.String(), "TCG"); n != 1 {
		t.Errorf("TCG said %d times, want once:\n%s", n, log.String())
	}
	b, _ := os.ReadFile(calls)
	got := strings.Fields(string(b))
	if want := []string{"kvm", "tcg", "tcg"}; sys.KVMCreateVM() != nil {
		if strings.Join(got, " ") != "tcg tcg" {
			t.Errorf("qemu asked for %v, want tcg twice", got)
		}
	} else if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("qemu asked for %v, want %v: KVM once, then TCG for the rest", got, want)
	}
	if len(sets) != 1 {
		t.Fatalf("%d sets", len(sets))
	}
	s := sets[0]
	if s.Labels["accel"] != "tcg" || !contains(s.Warnings, TCGWarning) {
		t.Errorf("accel label %q, warnings %q: want tcg and the TCG warning", s.Labels["accel"], s.Warnings)
	}
	if n := len(s.Benchmarks[0].Measured()); n != 2 {
		t.Errorf("%d measured runs, want one per boot", n)
	}

	// The next session knows, before any boot.
	if sys.KVMCreateVM() == nil {
		var next bytes.Buffer
		accel, err := initialAccel("auto", qemu, probeFile(), &next)
		if err != nil || accel != "tcg" || !strings.Contains(next.String(), "remembered in "+cache) {
			t.Errorf("next session: accel %q, %v, said %q; want tcg, remembered in %s", accel, err, next.String(), cache)
		}
	}
}

// TestKVMAbortCLI is issue 12's acceptance through the command line, with
// the stand-in first in PATH: kdelta vm --kernel K -- run syscall -r 1
// prints one fallback line and records accel=tcg; --accel kvm fails with
// qemu's line and exit 2.
func TestKVMAbortCLI(t *testing.T) {
	kernel := kernelLink(t, testKernel(t))
	bin := staticKdelta(t)
	dir, _ := abortingQemu(t)
	t.Parallel()
	home := t.TempDir()
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CACHE_HOME="+home, "XDG_DATA_HOME="+home, "KDELTA_STORE=")

	t.Run("auto", func(t *testing.T) {
		out := t.TempDir()
		cmd := exec.Command(bin, "vm", "--kernel", kernel, "--no-store", "-o", out, "--", "run", "syscall", "-r", "1")
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		t.Logf("kdelta vm: %.1f s\n%s", time.Since(start).Seconds(), stderr.String())
		checkNoQemu(t, kernel)
		if err != nil {
			t.Fatalf("kdelta vm: %v\n%s", err, stdout.String())
		}
		want := fallbackLine(t)
		if n := countLines(stderr.String(), want); n != 1 {
			t.Errorf("%d lines %q on stderr, want 1", n, want)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.json"))
		if len(files) != 1 {
			t.Fatalf("result files %v, want 1", files)
		}
		s, err := result.Load(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if s.Labels["accel"] != "tcg" {
			t.Errorf("accel label %q, want tcg", s.Labels["accel"])
		}
		if !strings.Contains(stdout.String(), "accel=tcg") {
			t.Errorf("the summary does not show accel=tcg:\n%s", stdout.String())
		}
	})

	t.Run("kvm", func(t *testing.T) {
		if err := sys.KVMCreateVM(); err != nil {
			t.Logf("KVM cannot create a VM here: --accel kvm fails before qemu (%v)", err)
		}
		cmd := exec.Command(bin, "vm", "--accel", "kvm", "--kernel", kernel, "--no-store", "--", "run", "syscall", "-r", "1")
		cmd.Env = env
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("kdelta vm --accel kvm: %v, want exit 2\n%s", err, b)
		}
		msg := strings.TrimSpace(string(b))
		if strings.Contains(msg, "\n") {
			t.Errorf("not one line: %q", msg)
		}
		// Where KVM cannot make a VM the line names /dev/kvm and why
		// ("--accel kvm: /dev/kvm: ..." when it opens but fails, "--accel
		// kvm: open /dev/kvm: no such file or directory" on a machine
		// without it); where it can, qemu's abort.
		want := []string{msrError}
		if err := sys.KVMCreateVM(); err != nil {
			want = []string{"--accel kvm: ", "/dev/kvm"}
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q lacks %q", msg, w)
			}
		}
	})
}

// TestKVMFailureLine: what the fallback line and the --accel kvm error
// say, from what qemu left.
func TestKVMFailureLine(t *testing.T) {
	tests := []struct {
		name string
		b    boot
		err  error
		want string
	}{
		{
			name: "abort",
			b:    boot{stderr: "qemu-system-x86_64: warning: host doesn't support requested feature: CPUID.01H:ECX.pni [bit 0]\n" + msrError + "\nqemu-system-x86_64: ../target/i386/kvm/kvm.c:3001: kvm_buf_set_msrs: Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.\n", exit: errors.New("signal: aborted")},
			err:  &bootError{msg: msrError},
			want: ": " + msrError + " (qemu: signal: aborted)",
		},
		{
			name: "exit without a word",
			b:    boot{exit: errors.New("exit status 1")},
			err:  &bootError{msg: "guest sent nothing"},
			want: ": qemu ended before the kernel's first line (qemu: exit status 1)",
		},
		{
			name: "deadline",
			b:    boot{deadline: 5 * time.Second, stderr: "qemu-system-x86_64: warning: host doesn't support requested feature: CPUID.01H:ECX.pni [bit 0]\n"},
			err:  errNotBooted,
			want: " within 5s (qemu-system-x86_64: warning: host doesn't support requested feature: CPUID.01H:ECX.pni [bit 0])",
		},
		{
			name: "silent deadline",
			b:    boot{deadline: 3 * time.Second},
			err:  errNotBooted,
			want: " within 3s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.kvmFailure(tt.err); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
