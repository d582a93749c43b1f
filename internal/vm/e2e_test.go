package vm

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestVMEndToEnd boots the test kernel with preempt=none and preempt=full,
// twice each (A B A B), runs syscall, rcu and bridge inside through the
// kdelta command line, and checks what came home: the guest's own
// fingerprint (kernel 6.1, the preemption mode read from debugfs inside
// the guest), the boot index of every run, the skip of bridge without
// --modules, the comparison kdelta vm ends with, and that of kdelta
// compare on the two recorded sets.
func TestVMEndToEnd(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	kernel := kernelLink(t, testKernel(t))
	bin := staticKdelta(t)
	out := t.TempDir()
	cache := t.TempDir() // a fresh KVM probe record
	cmd := exec.Command(bin, "vm", "--kernel", kernel,
		"--append", "preempt=none", "--append", "preempt=full",
		"--boots", "2", "--boot-deadline", "3s", "--timeout", "3m", "-o", out,
		"--", "run", "syscall:calls=100000", "rcu:calls=10", "bridge:cycles=1", "-r", "1", "--warmup", "0")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "XDG_DATA_HOME="+cache, "KDELTA_STORE=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("kdelta vm, 4 boots: %.1f s\n%s", time.Since(start).Seconds(), stderr.String())
	if err != nil {
		t.Fatalf("kdelta vm: %v\n%s", err, stdout.String())
	}
	checkNoQemu(t, kernel)
	// Two variants: the output ends with their comparison, as kdelta ab's.
	if !strings.Contains(stdout.String(), "\nA: cmdline=preempt=none,variant=A (baseline)\n") || !strings.Contains(stdout.String(), "\n      B vs A: ") {
		t.Errorf("no comparison of the two variants at the end of the output:\n%s", stdout.String())
	}

	// A B A B.
	order := regexp.MustCompile(`boot (\d)/4: ([AB]) `).FindAllStringSubmatch(stderr.String(), -1)
	var seq string
	for _, m := range order {
		seq += m[2]
	}
	if seq != "ABAB" {
		t.Errorf("boot order %q, want ABAB", seq)
	}
	tcg := strings.Contains(stderr.String(), "TCG")

	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 2 {
		t.Fatalf("result files %v, want 2", files)
	}
	want := map[string]string{"A": "none", "B": "full"}
	var ids []string
	for _, f := range files {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		v := s.Labels["variant"]
		mode, ok := want[v]
		if !ok {
			t.Fatalf("%s: variant label %q", f, v)
		}
		delete(want, v)
		ids = append(ids, s.ID)
		t.Run("variant "+v, func(t *testing.T) { checkGuestSet(t, s, mode, tcg) })
	}

	// The two sets were recorded in the store: they compare by id, and
	// the comparison says the timings are emulated.
	cmp := exec.Command(bin, "compare", ids[0], ids[1])
	cmp.Env = cmd.Env
	cout, err := cmp.CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta compare: %v\n%s", err, cout)
	}
	if !strings.Contains(string(cout), "preempt") {
		t.Errorf("compare output does not show the preemption modes:\n%s", cout)
	}
	if tcg && !strings.Contains(string(cout), "TCG") {
		t.Errorf("compare of TCG result sets does not warn that timings are emulated:\n%s", cout)
	}
}

func checkGuestSet(t *testing.T, s *result.Set, mode string, tcg bool) {
	if !strings.HasPrefix(s.Labels["kernel"], "6.1") {
		t.Errorf("kernel label %q, want 6.1...", s.Labels["kernel"])
	}
	if s.Labels["cmdline"] != "preempt="+mode {
		t.Errorf("cmdline label %q, want preempt=%s", s.Labels["cmdline"], mode)
	}
	if s.Labels["boots"] != "2" {
		t.Errorf("boots label %q", s.Labels["boots"])
	}
	env := s.Env
	if env == nil {
		t.Fatal("no fingerprint")
	}
	if !strings.HasPrefix(env.Kernel.Release.Value, "6.1") {
		t.Errorf("guest release %v", env.Kernel.Release)
	}
	// The mode was read inside the guest, from debugfs.
	if env.Preempt.Mode.Value != mode || !strings.Contains(env.Preempt.Mode.Source, "debug") {
		t.Errorf("preemption mode %+v, want %s from debugfs", env.Preempt.Mode, mode)
	}
	if !strings.Contains(env.Preempt.Debugfs.Value, "("+mode+")") {
		t.Errorf("debugfs preempt file %+v, want (%s) current", env.Preempt.Debugfs, mode)
	}
	if !strings.Contains(env.Kernel.Cmdline.Value, "preempt="+mode) || !strings.Contains(env.Kernel.Cmdline.Value, "panic=-1") {
		t.Errorf("guest cmdline %v", env.Kernel.Cmdline)
	}
	if !strings.HasPrefix(env.Config.Source, "/boot/config-") {
		t.Errorf("guest config %q (%s): not the one kdelta put in /boot", env.Config.Source, env.Config.Unknown)
	}
	if tcg {
		if s.Labels["accel"] != "tcg" {
			t.Errorf("accel label %q, want tcg", s.Labels["accel"])
		}
		if !contains(s.Warnings, TCGWarning) {
			t.Errorf("warnings %q lack the TCG warning", s.Warnings)
		}
	}
	if !s.Complete {
		t.Error("set not complete")
	}
	for _, b := range s.Benchmarks {
		switch b.Workload {
		case "syscall", "rcu":
			boots := map[string]int{}
			for _, r := range b.Runs {
				if r.Status != result.StatusOK {
					t.Errorf("%s run %d: %s %s", b.Workload, r.Index, r.Status, r.Reason)
				}
				boots[r.Info["boot"]]++
			}
			if boots["0"] != 1 || boots["1"] != 1 || len(b.Measured()) != 2 {
				t.Errorf("%s: runs by boot %v, %d measured; want one from each of boots 0 and 1", b.Workload, boots, len(b.Measured()))
			}
		case "bridge":
			if !strings.Contains(b.Skipped, "--modules") {
				t.Errorf("bridge without --modules: skipped %q, want a reason naming --modules", b.Skipped)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestVMModules boots with the kernel's own modules (the package unpacked
// by scripts/vm-kernel.sh), so bridge runs inside the guest.
func TestVMModules(t *testing.T) {
	t.Parallel()
	kernel := testKernel(t)
	pkg := filepath.Dir(filepath.Dir(kernel))
	if !fileExists(filepath.Join(pkg, "lib", "modules")) {
		testenv.Skipf(t, "no lib/modules beside %s", kernel)
	}
	link := kernelLink(t, kernel)
	job, err := ParseJob([]string{"run", "bridge:cycles=1,vlan_filtering=false", "-r", "1", "--warmup", "0"})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := Run(context.Background(), &Options{
		Variants: []Variant{{Kernel: link}}, Boots: 1, CPUs: 2, Accel: "tcg",
		Modules: pkg, Job: job, Timeout: 2 * time.Minute, Binary: staticKdelta(t),
	})
	checkNoQemu(t, link)
	if err != nil {
		t.Fatal(err)
	}
	b := sets[0].Benchmarks[0]
	if b.Skipped != "" || len(b.Measured()) != 1 {
		t.Fatalf("bridge with --modules: skipped %q, runs %+v", b.Skipped, b.Runs)
	}
}

// TestVMFailures: a file that is not a kernel, a guest that panics and a
// guest that never answers each end in a clear error, and no qemu stays.
func TestVMFailures(t *testing.T) {
	kernel := testKernel(t)
	bin := staticKdelta(t)
	long, err := ParseJob([]string{"run", "syscall:calls=100000000000", "-r", "1", "--warmup", "0"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		kernel  func(t *testing.T) string
		append  string
		timeout time.Duration
		cancel  time.Duration
		job     *Job
		want    []string
	}{
		{
			name: "not a kernel",
			kernel: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "notes.txt")
				os.WriteFile(p, []byte(strings.Repeat("not a kernel\n", 1000)), 0o644)
				return p
			},
			want: []string{"notes.txt", "not a kernel image kdelta boots"},
		},
		{
			name:   "an ELF file",
			kernel: func(t *testing.T) string { return bin },
			want:   []string{"not a kernel image kdelta boots", "ELF"},
		},
		{
			name:    "panic",
			kernel:  func(t *testing.T) string { return kernelLink(t, kernel) },
			append:  "rdinit=/nonexistent",
			timeout: 2 * time.Minute,
			want:    []string{"boot 1/1", "guest kernel panicked", "Kernel panic - not syncing", "console:"},
		},
		{
			name:    "timeout",
			kernel:  func(t *testing.T) string { return kernelLink(t, kernel) },
			timeout: 12 * time.Second,
			want:    []string{"guest timed out after 12s", "qemu killed", "console:"},
		},
		{
			name:    "guest error",
			kernel:  func(t *testing.T) string { return kernelLink(t, kernel) },
			timeout: 2 * time.Minute,
			job:     &Job{Specs: []string{"syscall"}, Repeat: 1, CPUs: "7"},
			want:    []string{"guest: --cpus: CPU 7 is not available here"},
		},
		{
			name:    "interrupted",
			kernel:  func(t *testing.T) string { return kernelLink(t, kernel) },
			timeout: 2 * time.Minute,
			cancel:  3 * time.Second,
			want:    []string{"interrupted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := tt.kernel(t)
			ctx := context.Background()
			if tt.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.cancel)
				defer cancel()
			}
			job := long
			if tt.job != nil {
				job = tt.job
			}
			start := time.Now()
			_, err := Run(ctx, &Options{
				Variants: []Variant{{Kernel: k, Append: tt.append}}, Boots: 1, CPUs: 2, Accel: "tcg",
				Job: job, Timeout: tt.timeout, Binary: bin,
			})
			t.Logf("%.1f s: %v", time.Since(start).Seconds(), err)
			checkNoQemu(t, k)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestVMSetupErrors(t *testing.T) {
	job, _ := ParseJob([]string{"run", "syscall"})
	dynamic, _ := exec.LookPath("true")
	// A kernel image that inspects as x86, so the checks after it run.
	k := filepath.Join(t.TempDir(), "vmlinuz-6.1.0-9-amd64")
	if err := os.WriteFile(k, fakeBzImage("6.1.0-9-amd64 #1 SMP"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  Options
		path string // $PATH, when set
		want string
	}{
		{name: "qemu missing", opt: Options{Variants: []Variant{{Kernel: k}}, Job: job}, path: "/nonexistent", want: "apt-get install qemu-system-x86"},
		{name: "qemu given but absent", opt: Options{Variants: []Variant{{Kernel: k}}, Job: job, Qemu: "/nonexistent/qemu"}, want: "/nonexistent/qemu"},
		{name: "dynamic guest binary", opt: Options{Variants: []Variant{{Kernel: k}}, Job: job, Qemu: "/bin/sh", Binary: dynamic}, want: "CGO_ENABLED=0"},
		{name: "no kernel", opt: Options{Job: job}, want: "no --kernel"},
		{name: "bad accel", opt: Options{Variants: []Variant{{Kernel: "k"}}, Job: job, Accel: "hvf"}, want: "--accel"},
		{name: "bad mem", opt: Options{Variants: []Variant{{Kernel: "k"}}, Job: job, Mem: "lots"}, want: "--mem"},
		{name: "zero boots", opt: Options{Variants: []Variant{{Kernel: "k"}}, Job: job, Boots: -1}, want: "--boots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path != "" {
				t.Setenv("PATH", tt.path)
			}
			o := tt.opt
			if o.Boots == 0 {
				o.Boots = 1
			}
			o.CPUs = 2
			_, err := Run(context.Background(), &o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
