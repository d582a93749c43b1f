package vm

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestVMKexec boots the test kernel (the Debian cloud flavour) in qemu as
// a loader whose /init loads the generic flavour of the same build with
// kexec_file_load and reboots into it; the job runs there. What came home
// must be the second kernel's: its release (not the loader's), its
// command line, a boot id other than the loader's, all as the guests said
// them on the result channel, and the fingerprint taken in the second
// boot. Without apt (the generic package cannot be fetched) the loader
// kexecs into its own image, told apart by its command line and boot id.
// A second kernel that panics fails the boot, saying which boot failed.
func TestVMKexec(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	loaderImage := kernelLink(t, testKernel(t))
	bin := staticKdelta(t)
	lk, err := InspectKernel(loaderImage)
	if err != nil {
		t.Fatal(err)
	}
	// 6.1.0-57-cloud-amd64 → linux-image-6.1.0-57-amd64, always in the
	// archive beside the cloud flavour.
	second := loaderImage
	if generic := strings.Replace(lk.Release, "-cloud-", "-", 1); generic != lk.Release {
		pkg, err := fetchDeb(debPrefix+"linux-image-"+generic, func(s string) { t.Log(s) })
		if err != nil && testenv.InCI() {
			t.Fatalf("the generic flavour, the second kernel: %v", err)
		}
		if err != nil {
			t.Logf("the generic flavour: %v; kexec into the loader's own image (the release cannot tell the boots apart)", err)
		} else {
			second = pkg.Image
		}
	}
	sk, err := InspectKernel(second)
	if err != nil {
		t.Fatal(err)
	}
	job, err := ParseJob([]string{"run", "syscall:calls=100000", "-r", "2", "--warmup", "0"})
	if err != nil {
		t.Fatal(err)
	}
	var con, log bytes.Buffer
	opt := &Options{
		Variants:  []Variant{{Kernel: second, Append: "kdelta.test=second-boot"}},
		KexecFrom: loaderImage,
		Boots:     1, CPUs: 1, Mem: "1G", Accel: "auto",
		Job: job, Binary: bin,
		Timeout: 2 * time.Minute, BootDeadline: 3 * time.Second,
		Console: &con, Log: &log,
	}
	start := time.Now()
	sets, err := Run(context.Background(), opt)
	t.Logf("kexec boot: %.1f s\n%s", time.Since(start).Seconds(), log.String())
	if err != nil {
		t.Fatalf("vm.Run: %v\nconsole:\n%s", err, tailLines(con.String(), 40))
	}
	checkNoQemu(t, loaderImage)
	if len(sets) != 1 {
		t.Fatalf("%d sets, want 1", len(sets))
	}
	s := sets[0]

	// The guests' own words on the channel, as /init printed them on the
	// console too: the loader's boot, then the second's.
	said := regexp.MustCompile(`kdelta guest: (\S+) \(boot (\S+)\) loaded (\S+); rebooting`).FindStringSubmatch(con.String())
	booted := regexp.MustCompile(`kdelta guest: booted (\S+) \(boot (\S+)\), command line "([^"]*)"`).FindStringSubmatch(con.String())
	if said == nil || booted == nil {
		t.Fatalf("the console does not show the loader's kexec and the second boot:\n%s", tailLines(con.String(), 60))
	}
	if said[1] != lk.Release || said[3] != sk.Release {
		t.Errorf("loader said %s loaded %s; want %s loaded %s", said[1], said[3], lk.Release, sk.Release)
	}
	wantCmdline := "console=ttyS0 panic=-1 kdelta.test=second-boot"
	if booted[1] != sk.Release || booted[3] != wantCmdline {
		t.Errorf("second boot said %s %q; want %s %q", booted[1], booted[3], sk.Release, wantCmdline)
	}

	// The result set: labelled with the second kernel, fingerprinted in
	// it, and every run carrying both boot ids, which differ.
	if s.Labels["kernel"] != sk.Release || s.Labels["kexec_from"] != lk.Release || s.Labels["cmdline"] != "kdelta.test=second-boot" {
		t.Errorf("labels %v; want kernel=%s kexec_from=%s cmdline=kdelta.test=second-boot", s.Labels, sk.Release, lk.Release)
	}
	if second != loaderImage && s.Labels["kernel"] == s.Labels["kexec_from"] {
		t.Errorf("the second kernel's release %s is the loader's", s.Labels["kernel"])
	}
	if s.Env == nil || s.Env.Kernel.Release.Value != sk.Release || s.Env.Kernel.Cmdline.Value != wantCmdline {
		t.Errorf("fingerprint kernel %+v; want release %s, cmdline %q", s.Env.Kernel, sk.Release, wantCmdline)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	runs := 0
	for _, b := range s.Benchmarks {
		for _, r := range b.Runs {
			runs++
			id, from := r.Info["boot_id"], r.Info["kexec_from_boot_id"]
			if !uuid.MatchString(id) || !uuid.MatchString(from) || id == from {
				t.Errorf("%s run %d: boot_id %q, kexec_from_boot_id %q; want two boot ids that differ", b.Workload, r.Index, id, from)
			}
			if id != booted[2] || from != said[2] {
				t.Errorf("%s run %d: boot ids %s from %s; the guests said %s from %s", b.Workload, r.Index, id, from, booted[2], said[2])
			}
		}
	}
	if runs != 2 {
		t.Errorf("%d runs, want 2", runs)
	}

	// A second kernel that does not come up (no init: it panics) fails
	// the boot, saying the loader loaded it and it said nothing.
	con.Reset()
	opt.Variants = []Variant{{Kernel: second, Append: "rdinit=/nonexistent"}}
	start = time.Now()
	_, err = Run(context.Background(), opt)
	t.Logf("kexec into a kernel that panics: %.1f s", time.Since(start).Seconds())
	if err == nil || !strings.Contains(err.Error(), "loaded "+sk.Release+", which said nothing of its boot") || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("kexec into a kernel that cannot start init: %v; want the loader's load and the panic said\nconsole:\n%s", err, tailLines(con.String(), 30))
	}
	checkNoQemu(t, loaderImage)
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestCheckKexec: a kexec counts only when the loader loaded the kernel,
// and the second boot is another boot of the release and command line
// asked for.
func TestCheckKexec(t *testing.T) {
	want := KexecStep{Release: "6.1.0-57-amd64", Cmdline: "console=ttyS0 panic=-1 x=1"}
	loader := BootReport{Release: "6.1.0-57-cloud-amd64", Cmdline: "console=ttyS0 panic=-1", BootID: "a", KexecInto: want.Release}
	good := BootReport{Release: want.Release, Cmdline: want.Cmdline, BootID: "b"}
	for _, tc := range []struct {
		name    string
		reports []BootReport
		err     string
	}{
		{"good", []BootReport{loader, good}, ""},
		{"no report", nil, "said nothing of its boot"},
		{"not loaded", []BootReport{{Release: "r", BootID: "a"}}, "did not load the kernel"},
		{"second silent", []BootReport{loader}, "which said nothing of its boot"},
		{"same boot", []BootReport{loader, {Release: want.Release, Cmdline: want.Cmdline, BootID: "a"}}, "boot id did not change"},
		{"other release", []BootReport{loader, {Release: "6.1.0-57-cloud-amd64", Cmdline: want.Cmdline, BootID: "b"}}, "6.1.0-57-cloud-amd64 booted, not 6.1.0-57-amd64"},
		{"other cmdline", []BootReport{loader, {Release: want.Release, Cmdline: "console=ttyS0", BootID: "b"}}, `with "console=ttyS0"`},
	} {
		_, _, err := checkKexec(tc.reports, want)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.err)
		}
	}
}
