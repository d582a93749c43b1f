package vm

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// A Kernel is a kernel image to boot, with what its header says of it.
type Kernel struct {
	Path string
	// Release is the uname -r the image will report ("6.1.0-57-cloud-amd64"),
	// read from the image's header.
	Release string
	// Version is the whole version string of the header.
	Version string
	// Arch is the image's architecture, as GOARCH names it.
	Arch string
	// Config is the build configuration found beside the image, "" when
	// none was found. It is put into the guest as /boot/config-RELEASE so
	// that the guest's fingerprint has the config of a kernel built
	// without /proc/config.gz.
	Config string
}

// MaxKernelBytes is the most kdelta reads of a kernel image: a
// distribution's vmlinuz is tens of MiB, a stripped ppc64le vmlinux a
// few dozen more.
const MaxKernelBytes = 512 << 20

// InspectKernel reads what the kernel image at path says of itself: its
// architecture, from the header, and its release. An x86 bzImage carries
// the version string at the offset its boot protocol header gives
// (Documentation/arch/x86/boot.rst: the boot flag 0xAA55 at 0x1FE, "HdrS"
// at 0x202, the offset at 0x20E); an arm64 Image ("ARM\x64" at 0x38) and
// a ppc64le vmlinux (an ELF file) hold the kernel's banner, "Linux version
// RELEASE"; an s390x image ("S390EP" at 0x10008) is compressed, and its
// release comes from its file name, vmlinuz-RELEASE. It fails with a
// message naming the file when the file is none of these.
func InspectKernel(path string) (*Kernel, error) {
	data, err := result.ReadInput(context.Background(), path, MaxKernelBytes, "a kernel image")
	if err != nil {
		return nil, fmt.Errorf("--kernel %w", err)
	}
	k := &Kernel{Path: path}
	notKernel := func(why string) error {
		return fmt.Errorf("--kernel %s: not a kernel image kdelta boots (an x86 bzImage, an arm64 Image, a ppc64le vmlinux, an s390x image): %s", path, why)
	}
	switch {
	case len(data) >= 0x210 && binary.LittleEndian.Uint16(data[0x1FE:]) == 0xAA55 && string(data[0x202:0x206]) == "HdrS":
		k.Arch = "amd64"
		if off := int(binary.LittleEndian.Uint16(data[0x20E:])); off != 0 && 0x200+off < len(data) {
			s := data[0x200+off:]
			if i := bytes.IndexByte(s, 0); i >= 0 {
				s = s[:i]
			}
			k.Version = strings.TrimSpace(string(s))
		}
	case len(data) >= 0x40 && string(data[0x38:0x3C]) == "ARM\x64":
		k.Arch = "arm64"
		k.Version = banner(data)
	case len(data) >= 0x1000E && string(data[0x10008:0x1000E]) == "S390EP":
		k.Arch = "s390x"
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return nil, notKernel(err.Error())
		}
		switch {
		case f.Machine == elf.EM_PPC64 && f.ByteOrder == binary.LittleEndian:
			k.Arch = "ppc64le"
		case f.Machine == elf.EM_X86_64:
			return nil, notKernel("it is an x86 ELF file (a vmlinux?); boot the compressed image, arch/x86/boot/bzImage")
		default:
			return nil, notKernel(fmt.Sprintf("an ELF file for %s", f.Machine))
		}
		k.Version = banner(data)
	case len(data) < 0x210:
		return nil, notKernel(fmt.Sprintf("only %d bytes", len(data)))
	default:
		return nil, notKernel("no header of one (x86 HdrS at 0x202, arm64 ARMd at 0x38, s390x S390EP at 0x10008, a ppc64le ELF)")
	}
	if f := strings.Fields(k.Version); len(f) > 0 {
		k.Release = f[0]
	}
	if k.Release == "" {
		// The file name of a distribution's image: vmlinuz-RELEASE.
		base := filepath.Base(path)
		for _, p := range []string{"vmlinuz-", "vmlinux-", "Image-", "bzImage-"} {
			if r, ok := strings.CutPrefix(base, p); ok && r != "" {
				k.Release = r
			}
		}
	}
	k.Config = findConfig(path, k.Release)
	return k, nil
}

// banner returns what follows "Linux version " in a kernel image, up to
// the line's end: the release and the build.
func banner(data []byte) string {
	const tag = "Linux version "
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte(tag))
		if i < 0 {
			return ""
		}
		s := data[off+i+len(tag):]
		if j := bytes.IndexAny(s, "\n\x00"); j >= 0 {
			s = s[:j]
		}
		// The banner's format string ("%s version %s") is no release.
		if v := strings.TrimSpace(string(s)); v != "" && !strings.Contains(v, "%") {
			return v
		}
		off += i + len(tag)
	}
}

// elfMachines are the ELF machines of the architectures kdelta boots.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390}

// findConfig looks for the config of the image at path: config-RELEASE
// beside it (a distribution's /boot), or the .config of the build tree
// the image lies in (arch/x86/boot/bzImage, three levels down).
func findConfig(path, release string) string {
	dir := filepath.Dir(path)
	var cands []string
	if release != "" {
		cands = append(cands, filepath.Join(dir, "config-"+release))
	}
	for d, i := dir, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		cands = append(cands, filepath.Join(d, ".config"))
	}
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// checkStatic tells why the binary at path cannot be the /init of a guest
// of architecture a: it must be an ELF executable for a with no program
// interpreter (the guest has no libc and no dynamic loader).
func checkStatic(path string, a *arch) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("guest binary %s: %w", path, err)
	}
	defer f.Close()
	if want := elfMachines[a.Name]; f.Machine != want {
		return fmt.Errorf("guest binary %s: built for %s, the guest is %s", path, f.Machine, a.Uname)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("guest binary %s is dynamically linked and cannot be the guest's /init: build kdelta with CGO_ENABLED=0 (CGO_ENABLED=0 go build ./cmd/kdelta)", path)
		}
	}
	return nil
}
