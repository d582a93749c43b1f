package vm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// buildDir holds the static kdelta the tests boot as /init; it is built
// once per test binary and removed by TestMain.
var (
	buildDir  string
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// staticKdelta builds kdelta with CGO_ENABLED=0, as a guest's /init must
// be, and returns its path.
func staticKdelta(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("go tool not found: %w", err)
			return
		}
		buildDir, buildErr = os.MkdirTemp("", "kdelta-vm-test-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "kdelta")
		cmd := exec.Command(goTool, "build", "-o", buildBin, "../../cmd/kdelta")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// testKernel returns the kernel image to boot: $KDELTA_TEST_KERNEL, or
// the newest one scripts/vm-kernel.sh left in the cache. It skips the
// test, saying why, when there is none or qemu is missing.
func testKernel(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		testenv.Skip(t, "qemu-system-x86_64 not installed (scripts/vm-kernel.sh installs it)")
	}
	if k := os.Getenv("KDELTA_TEST_KERNEL"); k != "" {
		return k
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	found, _ := filepath.Glob(filepath.Join(cache, "kdelta", "kernels", "*-amd64", "boot", "vmlinuz-*"))
	if len(found) == 0 {
		testenv.Skip(t, "no test kernel: set KDELTA_TEST_KERNEL or run scripts/vm-kernel.sh")
	}
	sort.Strings(found)
	return found[len(found)-1]
}

// kernelLink makes a directory of its own holding a link to the kernel
// (and its config), so that the qemu processes of one test are told
// apart by the path on their command line.
func kernelLink(t *testing.T, kernel string) string {
	t.Helper()
	dir := t.TempDir()
	link := filepath.Join(dir, filepath.Base(kernel))
	if err := os.Symlink(kernel, link); err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(filepath.Base(kernel), "vmlinuz-")
	if cfg := filepath.Join(filepath.Dir(kernel), "config-"+rel); fileExists(cfg) {
		os.Symlink(cfg, filepath.Join(dir, "config-"+rel))
	}
	return link
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// qemuWith returns the processes whose command line mentions marker: the
// qemu processes a test started.
func qemuWith(marker string) []string {
	var found []string
	pids, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cl, "qemu-system") && strings.Contains(cl, marker) {
			found = append(found, filepath.Base(filepath.Dir(p))+": "+cl)
		}
	}
	return found
}

func checkNoQemu(t *testing.T, marker string) {
	t.Helper()
	if left := qemuWith(marker); len(left) > 0 {
		t.Errorf("qemu left behind: %v", left)
	}
}
