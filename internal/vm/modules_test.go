package vm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{
		"kernel/net/bridge/bridge.ko":         "bridge",
		"kernel/drivers/net/veth.ko.xz":       "veth",
		"kernel/net/802/stp.ko.gz":            "stp",
		"kernel/drivers/foo/snd-hda-intel.ko": "snd_hda_intel",
		"/lib/modules/x/llc.ko.zst":           "llc",
	} {
		if got := moduleName(in); got != want {
			t.Errorf("moduleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveModules(t *testing.T) {
	kernel := testKernel(t)
	pkg := filepath.Dir(filepath.Dir(kernel))
	rel := strings.TrimPrefix(filepath.Base(kernel), "vmlinuz-")
	tree, err := moduleTree(pkg, rel)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(tree, filepath.Join("lib", "modules", rel)) {
		testenv.Skipf(t, "no lib/modules/%s in %s", rel, pkg)
	}
	mods, err := resolveModules(tree, []string{"bridge", "veth", "no_such_module"})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, m := range mods {
		pos[m.Name] = i
	}
	for _, n := range []string{"bridge", "stp", "llc", "veth"} {
		if _, ok := pos[n]; !ok {
			t.Fatalf("modules %v lack %s", pos, n)
		}
	}
	if pos["stp"] > pos["bridge"] || pos["llc"] > pos["stp"] {
		t.Errorf("order %v: dependencies must come first", pos)
	}
	if _, err := moduleTree(filepath.Join(pkg, "nonexistent"), rel); err == nil {
		t.Error("a missing --modules directory was accepted")
	}
}

// TestReadCompressedModule reads one of the test kernel's modules
// compressed by the distributions' tools, gzip, xz as Fedora calls it and
// zstd, and must get the module back byte for byte.
func TestReadCompressedModule(t *testing.T) {
	kernel := testKernel(t)
	rel := strings.TrimPrefix(filepath.Base(kernel), "vmlinuz-")
	src := filepath.Join(filepath.Dir(filepath.Dir(kernel)), "lib", "modules", rel, "kernel", "net", "802", "stp.ko")
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("the test kernel's package has no stp.ko: %v", err)
	}
	for _, c := range []struct{ tool, pkg, ext string }{
		{"gzip", "gzip", ".gz"}, {"xz", "xz-utils", ".xz"}, {"zstd", "zstd", ".zst"},
	} {
		tool := testenv.NeedCommand(t, c.tool, c.pkg)
		p := filepath.Join(t.TempDir(), "stp.ko")
		os.WriteFile(p, want, 0o644)
		args := []string{"-q", p}
		if c.tool == "xz" {
			args = []string{"--check=crc32", "--lzma2=dict=1MiB", p}
		} else if c.tool == "zstd" {
			args = []string{"-q", "--rm", p}
		}
		if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", c.tool, err, out)
		}
		got, err := readModule(p + c.ext)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want the %d of stp.ko", c.ext, len(got), err, len(want))
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.ko.xz")
	os.WriteFile(bad, []byte("not xz"), 0o644)
	if _, err := readModule(bad); err == nil {
		t.Error("a module that is not xz was read")
	}
}
