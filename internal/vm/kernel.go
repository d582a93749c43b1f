package vm

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A Kernel is a kernel image to boot, with what its header says of it.
type Kernel struct {
	Path string
	// Release is the uname -r the image will report ("6.1.0-57-cloud-amd64"),
	// read from the image's header.
	Release string
	// Version is the whole version string of the header.
	Version string
	// Config is the build configuration found beside the image, "" when
	// none was found. It is put into the guest as /boot/config-RELEASE so
	// that the guest's fingerprint has the config of a kernel built
	// without /proc/config.gz.
	Config string
}

// InspectKernel reads the x86 boot protocol header of the bzImage at path
// (Documentation/arch/x86/boot.rst): the boot flag 0xAA55 at 0x1FE, the
// "HdrS" magic at 0x202, and the offset of the version string at 0x20E
// (relative to 0x200). It fails with a message naming the file when the
// file is not such an image.
func InspectKernel(path string) (*Kernel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--kernel %s: %w", path, err)
	}
	defer f.Close()
	// The setup code, which holds the version string, is at most 64 KiB.
	hdr := make([]byte, 0x10000)
	n, err := io.ReadFull(f, hdr)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("--kernel %s: %w", path, err)
	}
	hdr = hdr[:n]
	notKernel := func(why string) error {
		return fmt.Errorf("--kernel %s: not an x86 kernel image (bzImage): %s", path, why)
	}
	if len(hdr) < 0x210 {
		return nil, notKernel(fmt.Sprintf("only %d bytes", len(hdr)))
	}
	if binary.LittleEndian.Uint16(hdr[0x1FE:]) != 0xAA55 || string(hdr[0x202:0x206]) != "HdrS" {
		if bytes.HasPrefix(hdr, []byte("\x7fELF")) {
			return nil, notKernel("it is an ELF file (a vmlinux?); boot the compressed image, arch/x86/boot/bzImage")
		}
		return nil, notKernel("no boot protocol header (HdrS at 0x202)")
	}
	k := &Kernel{Path: path}
	if off := int(binary.LittleEndian.Uint16(hdr[0x20E:])); off != 0 && 0x200+off < len(hdr) {
		s := hdr[0x200+off:]
		if i := bytes.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		k.Version = strings.TrimSpace(string(s))
		if f := strings.Fields(k.Version); len(f) > 0 {
			k.Release = f[0]
		}
	}
	k.Config = findConfig(path, k.Release)
	return k, nil
}

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

// checkStatic tells why the binary at path cannot be a guest's /init: it
// must be an x86-64 ELF executable with no program interpreter (the guest
// has no libc and no dynamic loader).
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("guest binary %s: %w", path, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return fmt.Errorf("guest binary %s: built for %s, the guest is x86_64", path, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("guest binary %s is dynamically linked and cannot be the guest's /init: build kdelta with CGO_ENABLED=0 (CGO_ENABLED=0 go build ./cmd/kdelta)", path)
		}
	}
	return nil
}
