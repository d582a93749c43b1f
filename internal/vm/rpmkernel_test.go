package vm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// buildKernelRPM builds, with rpmbuild, a kernel RPM laid out as Fedora's
// kernel-core is, from the test kernel at image (Debian's, unpacked):
// /lib/modules/RELEASE/vmlinuz, config and System.map, and the modules
// bridge needs under lib/modules/RELEASE/kernel, each compressed with xz
// as Fedora's are, the payload with zstd as Fedora's is. It returns the
// package's path.
func buildKernelRPM(t *testing.T, image, name, version, release string) string {
	t.Helper()
	rpmbuild := testenv.NeedCommand(t, "rpmbuild", "rpm")
	xz := testenv.NeedCommand(t, "xz", "xz-utils")
	rel := strings.TrimPrefix(filepath.Base(image), "vmlinuz-")
	boot := filepath.Dir(image)
	mods := filepath.Join(filepath.Dir(boot), "lib", "modules", rel)
	top := t.TempDir()
	var install strings.Builder
	dest := "%{buildroot}/lib/modules/" + rel
	install.WriteString("mkdir -p " + dest + "\n")
	for src, to := range map[string]string{"vmlinuz-" + rel: "vmlinuz", "config-" + rel: "config", "System.map-" + rel: "System.map"} {
		if _, err := os.Stat(filepath.Join(boot, src)); err != nil {
			t.Fatalf("the test kernel has no %s beside it: %v", src, err)
		}
		install.WriteString("cp " + filepath.Join(boot, src) + " " + dest + "/" + to + "\n")
	}
	for _, m := range []string{"net/bridge/bridge.ko", "net/802/stp.ko", "net/llc/llc.ko", "drivers/net/veth.ko"} {
		src := filepath.Join(mods, "kernel", m)
		if _, err := os.Stat(src); err != nil {
			t.Fatalf("the test kernel's package has no %s: %v", m, err)
		}
		install.WriteString("mkdir -p " + dest + "/kernel/" + filepath.Dir(m) + "\ncp " + src + " " + dest + "/kernel/" + m + "\n")
		install.WriteString(xz + " --check=crc32 --lzma2=dict=1MiB " + dest + "/kernel/" + m + "\n")
	}
	spec := filepath.Join(top, "kernel.spec")
	os.WriteFile(spec, []byte(`Name: `+name+`
Version: `+version+`
Release: `+release+`
Summary: the kdelta test kernel, packaged as kernel-core is
License: GPL-2.0-only
AutoReqProv: no
%description
The Debian kernel the vm tests boot, as an RPM.
%install
`+install.String()+`
%files
/lib/modules/`+rel+`
`), 0o644)
	cmd := exec.Command(rpmbuild, "-bb", "--quiet",
		"--define", "_topdir "+top,
		"--define", "debug_package %{nil}",
		"--define", "__os_install_post %{nil}",
		"--define", "_build_id_links none",
		"--define", "_binary_payload w3.zstdio",
		spec)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rpmbuild: %v\n%s", err, out)
	}
	rpms, _ := filepath.Glob(filepath.Join(top, "RPMS", "*", name+"-"+version+"-"+release+".*.rpm"))
	if len(rpms) != 1 {
		t.Fatalf("rpmbuild made %v", rpms)
	}
	return rpms[0]
}

// TestRPMKernel boots --kernel rpm:FILE.rpm, a kernel-core RPM built here
// from the test kernel: the image comes from /lib/modules/RELEASE/vmlinuz,
// its config reaches the guest (the fingerprint's config is the one kdelta
// put into /boot), its modules (.ko.xz) serve bridge with no --modules, and the
// set's kernel_package label is the package's name and version. A package
// cut short and a file that is no package are each one line and exit 2.
func TestRPMKernel(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	image := testKernel(t)
	bin := staticKdelta(t)
	pkg := buildKernelRPM(t, image, "kernel-core", "6.1.0", "57.kdtest")
	out := t.TempDir()
	cache := t.TempDir()
	run := func(kernel string, extra ...string) (string, string, error) {
		args := append([]string{"vm", "--kernel", kernel, "--accel", "tcg", "--timeout", "3m", "--no-store"}, extra...)
		args = append(args, "--", "run", "bridge:cycles=1", "-r", "1", "--warmup", "0")
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "XDG_DATA_HOME="+cache, "KDELTA_STORE=")
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}
	if _, stderr, err := run("rpm:"+pkg, "-o", out); err != nil {
		t.Fatalf("kdelta vm --kernel rpm:%s: %v\n%s", pkg, err, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		t.Fatalf("result files %v, want 1", files)
	}
	s, err := result.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(filepath.Base(image), "vmlinuz-")
	if s.Labels["kernel_package"] != "kernel-core=6.1.0-57.kdtest" || s.Labels["kernel"] != rel {
		t.Errorf("labels kernel_package %q, kernel %q; want kernel-core=6.1.0-57.kdtest, %s", s.Labels["kernel_package"], s.Labels["kernel"], rel)
	}
	if s.Env == nil || s.Env.Config.Source != "/boot/config-"+rel || s.Env.Preempt.Mode.Value == "" {
		t.Errorf("guest fingerprint: config %+v, preemption %+v; want the package's config in /boot/config-%s", s.Env.Config, s.Env.Preempt.Mode, rel)
	}
	if len(s.Benchmarks) != 1 || s.Benchmarks[0].Skipped != "" || len(s.Benchmarks[0].Measured()) != 1 || s.Benchmarks[0].Measured()[0].Status != result.StatusOK {
		t.Errorf("bridge: %+v; want one run, its modules loaded from the package", s.Benchmarks)
	}

	data, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.rpm")
	os.WriteFile(cut, data[:len(data)/2], 0o644)
	notRPM := filepath.Join(t.TempDir(), "not.rpm")
	os.WriteFile(notRPM, []byte("not a package\n"), 0o644)
	for file, want := range map[string]string{cut: "kernel-core-6.1.0-57.kdtest", notRPM: "not an RPM package"} {
		_, stderr, err := run("rpm:" + file)
		ee, ok := err.(*exec.ExitError)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if !ok || ee.ExitCode() != 2 || len(lines) != 1 || !strings.Contains(lines[0], "--kernel rpm:"+file+": ") || !strings.Contains(lines[0], want) {
			t.Errorf("--kernel rpm:%s: %v, stderr %q; want exit 2 and one line naming the file and %q", file, err, stderr, want)
		}
	}
}

// TestRPMKernelPath maps the files of the distributions' kernel packages
// into the unpacked tree, and keeps every other file, and any path that
// climbs out, out of it.
func TestRPMKernelPath(t *testing.T) {
	for in, want := range map[string]string{
		"/lib/modules/6.17.1-300.fc43.x86_64/vmlinuz":         "boot/vmlinuz-6.17.1-300.fc43.x86_64",
		"/lib/modules/6.17.1-300.fc43.x86_64/config":          "boot/config-6.17.1-300.fc43.x86_64",
		"/lib/modules/6.17.1-300.fc43.x86_64/System.map":      "boot/System.map-6.17.1-300.fc43.x86_64",
		"/usr/lib/modules/6.12.0-1-default/vmlinux":           "boot/vmlinux-6.12.0-1-default",
		"./lib/modules/6.17.1/kernel/net/bridge/bridge.ko.xz": "lib/modules/6.17.1/kernel/net/bridge/bridge.ko.xz",
		"/boot/vmlinuz-4.18.0-553.el8.x86_64":                 "boot/vmlinuz-4.18.0-553.el8.x86_64",
		"/boot/config-4.18.0-553.el8.x86_64":                  "boot/config-4.18.0-553.el8.x86_64",
		"/boot/.vmlinuz-6.17.1-300.fc43.x86_64.hmac":          "",
		"/boot/vmlinuz-":                             "",
		"/boot/efi/vmlinuz-x":                        "",
		"/etc/kernel/postinst.d/x":                   "",
		"/lib/modules/":                              "",
		"/lib/modules/../../etc/passwd":              "",
		"/lib/modules/6.17.1/../../../../etc/shadow": "",
		"/usr/share/doc/kernel-core/COPYING":         "",
	} {
		if got := rpmKernelPath(in); got != want {
			t.Errorf("rpmKernelPath(%q) = %q, want %q", in, got, want)
		}
	}
}
