package vm

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/kdelta/kdelta/internal/guest"
)

// A module is one module file put into the guest.
type module struct {
	Name string
	Data []byte
}

// Where the guest finds its modules: one file per module, loaded in the
// order the file guestModuleOrder lists them.
const (
	guestModuleDir   = guest.ModuleDir
	guestModuleOrder = guest.ModuleOrder
)

// moduleTree returns the directory to search for modules: dir/lib/modules/
// RELEASE when it exists (an unpacked package, an install with
// INSTALL_MOD_PATH), else dir itself (a /lib/modules/RELEASE directory).
func moduleTree(dir, release string) (string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("--modules: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("--modules %s: not a directory", dir)
	}
	if release != "" {
		sub := filepath.Join(dir, "lib", "modules", release)
		if fi, err := os.Stat(sub); err == nil && fi.IsDir() {
			return sub, nil
		}
	}
	return dir, nil
}

// resolveModules finds the named modules under tree and everything they
// depend on, and returns them each after its dependencies. Dependencies
// come from each module's own .modinfo section (depends=), so a tree
// without modules.dep (a package unpacked with dpkg -x, never depmod'ed)
// works. A module not found is left out: the kernel may have it built in,
// and the guest says so when it is missing.
func resolveModules(tree string, names []string) ([]module, error) {
	files := map[string]string{}
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".ko") || strings.HasSuffix(p, ".ko.gz") ||
			strings.HasSuffix(p, ".ko.xz") || strings.HasSuffix(p, ".ko.zst")) {
			if _, dup := files[moduleName(p)]; !dup {
				files[moduleName(p)] = p
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--modules: %w", err)
	}
	var mods []module
	seen := map[string]bool{}
	var visit func(name string, depth int) error
	visit = func(name string, depth int) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		p, ok := files[name]
		if !ok {
			return nil
		}
		if depth > 32 {
			return fmt.Errorf("--modules: dependency chain too deep at %s", p)
		}
		data, err := readModule(p)
		if err != nil {
			return fmt.Errorf("--modules: %w", err)
		}
		deps, err := moduleDepends(data)
		if err != nil {
			return fmt.Errorf("--modules: %s: %w", p, err)
		}
		for _, d := range deps {
			if err := visit(d, depth+1); err != nil {
				return err
			}
		}
		mods = append(mods, module{Name: name, Data: data})
		return nil
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	for _, n := range sorted {
		if err := visit(n, 0); err != nil {
			return nil, err
		}
	}
	return mods, nil
}

// moduleDepends reads the depends= entry of a module's .modinfo section:
// the modules it needs loaded first.
func moduleDepends(ko []byte) ([]string, error) {
	f, err := elf.NewFile(bytes.NewReader(ko))
	if err != nil {
		return nil, fmt.Errorf("not a kernel module: %w", err)
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, errors.New("not a kernel module: no .modinfo section")
	}
	info, err := sec.Data()
	if err != nil {
		return nil, err
	}
	for _, kv := range bytes.Split(info, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok {
			var deps []string
			for _, d := range strings.Split(string(v), ",") {
				if d = strings.TrimSpace(d); d != "" {
					deps = append(deps, strings.ReplaceAll(d, "-", "_"))
				}
			}
			return deps, nil
		}
	}
	return nil, nil
}

// moduleName returns the module name of a module file path: its base name
// without .ko and a compression suffix, with dashes as underscores (the
// kernel's spelling).
func moduleName(p string) string {
	b := path.Base(filepath.ToSlash(p))
	for _, s := range []string{".gz", ".xz", ".zst"} {
		b = strings.TrimSuffix(b, s)
	}
	b = strings.TrimSuffix(b, ".ko")
	return strings.ReplaceAll(b, "-", "_")
}

// readModule reads a module file, decompressing a gzip, xz (Fedora's,
// Debian's since trixie) or zstd one here: the guest's finit_module then
// takes it whatever the kernel was built to decompress.
func readModule(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	switch {
	case strings.HasSuffix(p, ".gz"):
		r, err = gzip.NewReader(bytes.NewReader(b))
	case strings.HasSuffix(p, ".xz"):
		r, err = xz.NewReader(bytes.NewReader(b))
	case strings.HasSuffix(p, ".zst"):
		var d *zstd.Decoder
		if d, err = zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1)); err == nil {
			defer d.Close()
			r = d
		}
	default:
		return b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	out, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return out, nil
}
