package vm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/kbuild"
)

// A kernel package is --kernel deb:NAME or deb:NAME=VERSION: a Debian
// linux-image package, fetched with apt-get download (its architecture's
// packages made known to apt first when they are not), unpacked into
// kdelta's cache and booted from there, with its lib/modules for the
// workloads that need modules.

// debPrefix marks a --kernel that names a package.
const debPrefix = "deb:"

// debArches maps the architecture suffix of a Debian kernel package's
// name to Debian's architecture name.
var debArches = []struct{ suffix, deb string }{
	{"-powerpc64le", "ppc64el"}, {"-arm64", "arm64"}, {"-s390x", "s390x"}, {"-amd64", "amd64"},
}

// goToDeb is Debian's name of this machine's architecture.
var goToDeb = map[string]string{"amd64": "amd64", "arm64": "arm64", "ppc64le": "ppc64el", "s390x": "s390x"}

// A kernelPackage is an unpacked kernel package, deb: or rpm:.
type kernelPackage struct {
	Name, Version string
	Dir           string // the unpacked tree: boot/, lib/modules/
	Image         string // boot/vmlinuz-RELEASE or boot/vmlinux-RELEASE
	// build is the kernel's build, for a kernel kdelta built (git:, tree:).
	build *kbuild.Kernel
}

// debCache is where packages are unpacked, one directory each.
func debCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("--kernel deb:: no cache directory: %w", err)
	}
	return filepath.Join(dir, "kdelta", "packages"), nil
}

// fetchDeb returns the kernel package ref names (deb:NAME[=VERSION]),
// from the cache or fetched and unpacked now; log says what it fetches.
func fetchDeb(ref string, log func(string)) (*kernelPackage, error) {
	spec := strings.TrimPrefix(ref, debPrefix)
	name, version, _ := strings.Cut(spec, "=")
	if !strings.HasPrefix(name, "linux-image-") {
		return nil, fmt.Errorf("--kernel %s: not a Debian kernel package name (linux-image-RELEASE)", ref)
	}
	darch := ""
	for _, a := range debArches {
		if strings.HasSuffix(name, a.suffix) {
			darch = a.deb
		}
	}
	if darch == "" {
		return nil, fmt.Errorf("--kernel %s: the package name ends in none of -amd64, -arm64, -powerpc64le, -s390x", ref)
	}
	if _, err := exec.LookPath("apt-get"); err != nil && !versioned(name) {
		return nil, fmt.Errorf("--kernel %s: apt-get not found: deb: kernels come from apt (fetch the package yourself and give its vmlinuz)", ref)
	}
	if !versioned(name) {
		// A metapackage (linux-image-cloud-arm64) names the current
		// build of its flavour through its one dependency.
		if err := addDebArch(darch, log); err != nil {
			return nil, fmt.Errorf("--kernel %s: %w", ref, err)
		}
		if version != "" {
			return nil, fmt.Errorf("--kernel %s: a version goes with a versioned package (linux-image-6.1.0-57-...), not the metapackage %s", ref, name)
		}
		dep, err := metaDepends(name + ":" + darch)
		if err != nil {
			return nil, fmt.Errorf("--kernel %s: %w", ref, err)
		}
		name = dep
	}
	cache, err := debCache()
	if err != nil {
		return nil, err
	}
	dirName := name
	if version != "" {
		dirName += "_" + version
	}
	dir := filepath.Join(cache, dirName)
	if k, err := unpackedKernel(dir, name); err == nil {
		return k, nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return nil, fmt.Errorf("--kernel %s: apt-get not found: deb: kernels come from apt (fetch the package yourself and give its vmlinuz)", ref)
	}
	if err := addDebArch(darch, log); err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", ref, err)
	}
	tmp, err := os.MkdirTemp(cache, ".fetch-")
	if err != nil {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return nil, err
		}
		if tmp, err = os.MkdirTemp(cache, ".fetch-"); err != nil {
			return nil, err
		}
	}
	defer os.RemoveAll(tmp)
	pkg := name + ":" + darch
	if version != "" {
		pkg += "=" + version
	}
	log(fmt.Sprintf("fetching %s with apt-get download", pkg))
	// A mirror can be mid-sync for a minute: try a few times.
	var out []byte
	for try := 1; try <= 4; try++ {
		cmd := exec.Command("apt-get", "download", pkg)
		cmd.Dir = tmp
		if out, err = cmd.CombinedOutput(); err == nil {
			break
		}
		if try < 4 {
			time.Sleep(time.Duration(try) * 10 * time.Second)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: apt-get download %s: %v: %s", ref, pkg, err, lastLine(string(out)))
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != 1 {
		return nil, fmt.Errorf("--kernel %s: apt-get download left %d packages", ref, len(debs))
	}
	part := dir + ".part"
	os.RemoveAll(part)
	if out, err := exec.Command("dpkg-deb", "-x", debs[0], part).CombinedOutput(); err != nil {
		os.RemoveAll(part)
		return nil, fmt.Errorf("--kernel %s: dpkg-deb -x: %v: %s", ref, err, lastLine(string(out)))
	}
	// The version as the package file names it: NAME_VERSION_ARCH.deb,
	// with the epoch's colon written %3a.
	if f := strings.Split(strings.TrimSuffix(filepath.Base(debs[0]), ".deb"), "_"); len(f) == 3 {
		v := strings.ReplaceAll(f[1], "%3a", ":")
		if err := os.WriteFile(filepath.Join(part, "kdelta-package"), []byte(name+"="+v+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	os.RemoveAll(dir)
	if err := os.Rename(part, dir); err != nil {
		return nil, err
	}
	return unpackedKernel(dir, name)
}

// versioned tells whether name is a versioned kernel package
// (linux-image-6.1.0-57-powerpc64le), not a metapackage.
func versioned(name string) bool {
	r := strings.TrimPrefix(name, "linux-image-")
	return r != "" && r[0] >= '0' && r[0] <= '9'
}

// metaDepends returns the versioned kernel package metapackage pkg
// depends on, as apt-cache depends lists it.
func metaDepends(pkg string) (string, error) {
	out, err := exec.Command("apt-cache", "depends", pkg).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("apt-cache depends %s: %v: %s", pkg, err, lastLine(string(out)))
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "Depends:" {
			if dep, _, _ := strings.Cut(f[1], ":"); versioned(dep) {
				return dep, nil
			}
		}
	}
	return "", fmt.Errorf("%s depends on no versioned linux-image package", pkg)
}

// unpackedKernel finds the image in an unpacked package.
func unpackedKernel(dir, name string) (*kernelPackage, error) {
	imgs, _ := filepath.Glob(filepath.Join(dir, "boot", "vmlinu[xz]-*"))
	if len(imgs) != 1 {
		return nil, fmt.Errorf("%s: %d kernel images in boot/", dir, len(imgs))
	}
	k := &kernelPackage{Name: name, Dir: dir, Image: imgs[0]}
	if b, err := os.ReadFile(filepath.Join(dir, "kdelta-package")); err == nil {
		_, k.Version, _ = strings.Cut(strings.TrimSpace(string(b)), "=")
	}
	return k, nil
}

// firstError is the first "E:" line of apt's output, or its last line.
func firstError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "E: ") {
			return l
		}
	}
	return lastLine(out)
}

// addDebArch makes apt know the packages of Debian architecture darch
// (dpkg --add-architecture, apt-get update), unless it is this machine's
// or already known.
func addDebArch(darch string, log func(string)) error {
	if goToDeb[runtime.GOARCH] == darch {
		return nil
	}
	out, err := exec.Command("dpkg", "--print-foreign-architectures").Output()
	if err == nil && strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", " "+darch+" ") {
		return nil
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("apt does not know %s packages, and adding them needs root: dpkg --add-architecture %s && apt-get update", darch, darch)
	}
	log(fmt.Sprintf("adding the %s architecture to apt (dpkg --add-architecture %s; apt-get update)", darch, darch))
	if out, err := exec.Command("dpkg", "--add-architecture", darch).CombinedOutput(); err != nil {
		return fmt.Errorf("dpkg --add-architecture %s: %v: %s", darch, err, lastLine(string(out)))
	}
	var msg []byte
	for try := 1; try <= 3; try++ {
		if msg, err = exec.Command("apt-get", "update", "-qq").CombinedOutput(); err == nil {
			return nil
		}
		if try < 3 {
			time.Sleep(time.Duration(try) * 10 * time.Second)
		}
	}
	// A mirror in the middle of a sync fails some index files (a
	// security suite's, often) and apt keeps the others: the package
	// may well be known, and apt-get download says so if not.
	if strings.Contains(string(msg), "Some index files failed to download") {
		log(fmt.Sprintf("warning: apt-get update left some index files as they were (a mirror mid-sync?): %s", firstError(string(msg))))
		return nil
	}
	return fmt.Errorf("apt-get update: %v: %s", err, lastLine(string(msg)))
}
