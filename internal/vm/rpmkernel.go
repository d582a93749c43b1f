package vm

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	rpmutils "github.com/sassoftware/go-rpmutils"
)

// A kernel RPM is --kernel rpm:FILE.rpm: a distribution's kernel package
// (Fedora's and RHEL's kernel-core, SUSE's kernel-default), read with
// go-rpmutils, whose payload decompressors (gzip, bzip2, xz, zstd) cover
// what the distributions build with. The kernel image is
// /lib/modules/RELEASE/vmlinuz (Fedora, RHEL 8 on) or
// /boot/vmlinuz-RELEASE (older ones, SUSE; vmlinux on ppc64le), its config
// and System.map beside it, and lib/modules/RELEASE holds the modules.
// They are unpacked into a directory laid out as a Debian package is
// (boot/vmlinuz-RELEASE, boot/config-RELEASE, lib/modules/RELEASE), so
// that the rest goes as for deb:.

// rpmPrefix marks a --kernel that is a kernel RPM file.
const rpmPrefix = "rpm:"

// unpackRPM unpacks the kernel of the RPM file at file into a new
// directory under dir and returns it, named by the package's name and its
// [epoch:]version-release.
func unpackRPM(file, dir string) (*kernelPackage, error) {
	where := "--kernel " + rpmPrefix + file
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	defer f.Close()
	pkg, err := rpmutils.ReadRpm(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not an RPM package: %v", where, err)
	}
	nevra, err := pkg.Header.GetNEVRA()
	if err != nil {
		return nil, fmt.Errorf("%s: the package header has no name and version: %v", where, err)
	}
	version := nevra.Version + "-" + nevra.Release
	if nevra.Epoch != "" && nevra.Epoch != "0" {
		version = nevra.Epoch + ":" + version
	}
	name := nevra.Name + "-" + version + "." + nevra.Arch
	out, err := os.MkdirTemp(dir, "rpm-")
	if err != nil {
		return nil, err
	}
	payload, err := pkg.PayloadReaderExtended()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: payload: %v", where, name, err)
	}
	for {
		fi, err := payload.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: payload: %v", where, name, err)
		}
		const regular, typeBits = 0o100000, 0o170000
		if fi.Mode()&typeBits != regular || payload.IsLink() {
			continue
		}
		dest := rpmKernelPath(fi.Name())
		if dest == "" {
			continue
		}
		if err := writeFrom(filepath.Join(out, dest), payload, fi.Size()); err != nil {
			return nil, fmt.Errorf("%s: %s: %s: %v", where, name, fi.Name(), err)
		}
	}
	k, err := unpackedKernel(out, nevra.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: %s holds no kernel image kdelta can boot (/lib/modules/RELEASE/vmlinuz or /boot/vmlinuz-RELEASE): %v", where, name, err)
	}
	k.Version = version
	return k, nil
}

// rpmKernelPath is where the payload file p goes in the unpacked tree,
// "" for a file kdelta does not need: the image, config and System.map,
// from lib/modules/RELEASE or /boot, as boot/NAME-RELEASE, and the rest
// of lib/modules/RELEASE as it is.
func rpmKernelPath(p string) string {
	p = path.Clean("/" + strings.TrimPrefix(p, "."))
	if rest, ok := strings.CutPrefix(p, "/usr/lib/modules/"); ok {
		p = "/lib/modules/" + rest // Fedora's and SUSE's usrmerge
	}
	if rest, ok := strings.CutPrefix(p, "/lib/modules/"); ok {
		release, file, ok := strings.Cut(rest, "/")
		if !ok || release == "" {
			return ""
		}
		switch file {
		case "vmlinuz", "vmlinux", "config", "System.map":
			return "boot/" + file + "-" + release
		}
		return "lib/modules/" + rest
	}
	if rest, ok := strings.CutPrefix(p, "/boot/"); ok && !strings.Contains(rest, "/") {
		for _, pre := range []string{"vmlinuz-", "vmlinux-", "config-", "System.map-"} {
			if strings.HasPrefix(rest, pre) && len(rest) > len(pre) {
				return "boot/" + rest
			}
		}
	}
	return ""
}

// writeFrom writes the next size bytes of r into the file p, making its
// directory.
func writeFrom(p string, r io.Reader, size int64) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("payload ends after %d of its %d bytes", n, size)
	}
	return err
}
