package vm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// An arch is what booting a kernel of one architecture takes: the qemu
// that emulates it and its machine, the console kdelta reads the kernel's
// lines on, and the result channel, a second port the guest kernel has
// built in (no module to load first), binary-clean in raw mode:
//
//	amd64    pc                the 8250 UARTs: console ttyS0, channel ttyS1
//	ppc64le  pseries           spapr-vty (hvc): console hvc0, channel hvc1
//	arm64    virt, cpu max     PL011 console ttyAMA0, channel a PCI 16550 (ttyS0)
//	s390x    s390-ccw-virtio   SCLP line-mode console (ttyS0), channel the
//	                           SCLP VT220 port (ttysclp0)
//
// The s390x channel is also a console the kernel writes to, so the guest
// quiets the kernel's console messages before it sends (the frames'
// length and hash would catch a line cut into one anyway).
type arch struct {
	Name  string // GOARCH
	Uname string // uname -m
	Qemu  string // the emulator
	Pkg   string // the Debian package that holds it
	// machine is qemu's arguments that choose the machine; tcgCPU the CPU
	// model under TCG ("" for the machine's default; KVM takes the host's).
	machine []string
	tcgCPU  string
	// console is what kdelta puts first on the kernel's command line.
	console string
	// ports is qemu's arguments for the console (on stdio) and the
	// channel (into the file path).
	ports func(path string) []string
}

// arches are the architectures kdelta boots, by GOARCH.
var arches = map[string]*arch{
	"amd64": {Name: "amd64", Uname: "x86_64", Qemu: "qemu-system-x86_64", Pkg: "qemu-system-x86",
		// Under TCG the default model (qemu64) is kept, as "max" makes
		// the emulated kernel take slower paths (a null system call costs
		// half as much again), with RDRAND, which seeds the guest's
		// random pool at once: without it the first getrandom (a result
		// set's id) waits seconds for entropy.
		tcgCPU:  "qemu64,+rdrand",
		console: "console=ttyS0",
		ports:   func(p string) []string { return []string{"-serial", "stdio", "-serial", "file:" + p} }},
	"ppc64le": {Name: "ppc64le", Uname: "ppc64le", Qemu: "qemu-system-ppc64", Pkg: "qemu-system-ppc",
		// pseries boots through SLOF, whose probing (PCI, NVRAM, USB)
		// takes 4 s or more of an emulated boot of 10; qemu's Virtual Open
		// Firmware (x-vof, qemu 6.0 on) starts a -kernel at once and gives
		// it the same device tree (archOf picks it by qemu's version).
		machine: []string{"-M", "pseries"},
		console: "console=hvc0",
		ports:   func(p string) []string { return []string{"-serial", "stdio", "-serial", "file:" + p} }},
	"arm64": {Name: "arm64", Uname: "aarch64", Qemu: "qemu-system-aarch64", Pkg: "qemu-system-arm",
		// pauth-impdef: max's pointer authentication with qemu's own
		// cheap hash instead of QARMA, which TCG emulates slowly (a boot
		// 7 s instead of 17, a null system call 6 us instead of 28).
		machine: []string{"-M", "virt"}, tcgCPU: "max,pauth-impdef=on",
		console: "console=ttyAMA0",
		ports: func(p string) []string {
			return []string{"-serial", "stdio", "-chardev", "file,id=kdchan,path=" + p, "-device", "pci-serial,chardev=kdchan"}
		}},
	"s390x": {Name: "s390x", Uname: "s390x", Qemu: "qemu-system-s390x", Pkg: "qemu-system-misc",
		machine: []string{"-M", "s390-ccw-virtio"},
		console: "console=ttyS0 conmode=sclp",
		ports: func(p string) []string {
			return []string{"-chardev", "stdio,id=kdcon", "-device", "sclplmconsole,chardev=kdcon", "-serial", "file:" + p}
		}},
}

// ArchNames are the architectures --arch takes.
var ArchNames = []string{"amd64", "arm64", "ppc64le", "s390x"}

// archNamed returns the architecture called name: its GOARCH, its uname
// -m, or Debian's name (ppc64el).
func archNamed(name string) (*arch, error) {
	switch name {
	case "x86_64":
		name = "amd64"
	case "aarch64":
		name = "arm64"
	case "ppc64el":
		name = "ppc64le"
	}
	if a, ok := arches[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("--arch: unknown architecture %q (%s)", name, strings.Join(ArchNames, ", "))
}

// native tells whether a runs natively here, where KVM can serve.
func (a *arch) native() bool { return a.Name == runtime.GOARCH }

// qemuMissing is the error for an emulator that is not installed.
func (a *arch) qemuMissing() error {
	if a.Name == "amd64" {
		return ErrQemuMissing
	}
	return fmt.Errorf("%s not found: install it to boot %s kernels (Debian, Ubuntu: apt-get install %s)", a.Qemu, a.Name, a.Pkg)
}

// archOf returns the architecture of kernel k, checked against --arch and
// --accel, and the qemu that boots it.
func archOf(opt *Options, k *Kernel) (*arch, string, error) {
	a, ok := arches[k.Arch]
	if !ok {
		return nil, "", fmt.Errorf("--kernel %s: architecture %q is not one kdelta boots (%s)", k.Path, k.Arch, strings.Join(ArchNames, ", "))
	}
	if opt.Arch != "" {
		want, err := archNamed(opt.Arch)
		if err != nil {
			return nil, "", err
		}
		if want != a {
			return nil, "", fmt.Errorf("--arch %s: %s is a %s kernel image", opt.Arch, k.Path, a.Name)
		}
	}
	if opt.Accel == "kvm" && !a.native() {
		return nil, "", fmt.Errorf("--accel kvm: %s is a %s kernel, which this %s machine can only emulate (TCG)", k.Path, a.Name, runtime.GOARCH)
	}
	q := opt.Qemu
	if q == "" {
		q = a.Qemu
	}
	path, err := exec.LookPath(q)
	if err != nil {
		if opt.Qemu == "" {
			return nil, "", a.qemuMissing()
		}
		return nil, "", fmt.Errorf("qemu %s: %w", opt.Qemu, err)
	}
	if a.Name == "ppc64le" && qemuMajor(path) >= 6 {
		vof := *a
		vof.machine = []string{"-M", "pseries,x-vof=on"}
		a = &vof
	}
	return a, path, nil
}

// qemuMajor is the major version qemu at path says it is
// ("QEMU emulator version 7.2.22 ..."), 0 when it says none.
func qemuMajor(path string) int {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return 0
	}
	_, v, ok := strings.Cut(string(out), "version ")
	if !ok {
		return 0
	}
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}

// guestBinary returns the static binary that becomes the /init of guests
// of architecture a: the one given (--guest-binary: kdelta-guest or
// kdelta itself, which is a guest too); kdelta-guest-linux-ARCH beside
// this executable; kdelta-guest built now from the kdelta source tree the
// command runs in (go run ./cmd/kdelta, a checkout); else, as before the
// lean guest, this executable for this machine's own architecture or
// kdelta-linux-ARCH beside it; else an error that says how to build one.
// kdelta-guest carries only what measures (cmd/kdelta-guest), a smaller
// initramfs and a faster boot than kdelta's.
func guestBinary(given string, a *arch) (string, error) {
	if given != "" {
		return given, checkStatic(given, a)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable for the guest's /init: %w", err)
	}
	lean := filepath.Join(filepath.Dir(exe), "kdelta-guest-linux-"+a.Name)
	if _, err := os.Stat(lean); err == nil {
		return lean, checkStatic(lean, a)
	}
	how := fmt.Sprintf("CGO_ENABLED=0 GOOS=linux GOARCH=%s go build -o %s ./cmd/kdelta-guest", a.Name, lean)
	root := sourceTree()
	var buildErr error
	if root != "" {
		if _, err := exec.LookPath("go"); err == nil {
			bin, err := buildGuest(root, a)
			if err == nil {
				return bin, checkStatic(bin, a)
			}
			buildErr = err
		}
	}
	if a.native() {
		// kdelta itself is a guest too, only a larger one.
		return exe, checkStatic(exe, a)
	}
	beside := filepath.Join(filepath.Dir(exe), "kdelta-linux-"+a.Name)
	if _, err := os.Stat(beside); err == nil {
		return beside, checkStatic(beside, a)
	}
	switch {
	case buildErr != nil:
		return "", buildErr
	case root == "":
		return "", fmt.Errorf("no kdelta-guest for %s guests: build one beside this binary (%s, in kdelta's source), or give --guest-binary", a.Name, how)
	}
	return "", fmt.Errorf("no kdelta-guest for %s guests and no go to build one from %s: %s, or give --guest-binary", a.Name, root, how)
}

// buildGuest builds kdelta-guest for architecture a from the kdelta
// source tree at root, into the user's cache, and returns its path. The
// go command's cache makes a build of an unchanged tree quick.
func buildGuest(root string, a *arch) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "kdelta", "guest", "kdelta-guest-linux-"+a.Name)
	cmd := exec.Command("go", "build", "-o", out, "./cmd/kdelta-guest")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+a.Name)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build kdelta-guest for %s guests in %s: %v: %s", a.Name, root, err, lastLine(string(msg)))
	}
	return out, nil
}

// sourceTree returns the root of the kdelta module the working directory
// lies in, or "" when it lies in none.
func sourceTree() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for ; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if strings.HasPrefix(string(b), "module github.com/kdelta/kdelta\n") {
				return dir
			}
			return ""
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}
