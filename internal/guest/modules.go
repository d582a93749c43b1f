package guest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

// WorkloadModules names, per workload, the kernel modules it needs and
// the config option that builds each. Distribution kernels build them as
// modules (=m), and a guest has no module tree unless vm's --modules
// gives one: the host puts them in ModuleDir, the guest loads them.
var WorkloadModules = map[string][]Kmod{
	"bridge": {{"bridge", "CONFIG_BRIDGE"}, {"veth", "CONFIG_VETH"}},
}

// A Kmod is a module a workload needs and the config option that builds it.
type Kmod struct {
	Name   string
	Option string
}

// loadGuestModules loads, in the guest, every module the initramfs holds,
// in order, and returns one line per module that failed.
func loadGuestModules(root string) []string {
	order, err := os.ReadFile(filepath.Join(root, ModuleOrder))
	if err != nil {
		return nil
	}
	var failed []string
	for _, name := range strings.Fields(string(order)) {
		p := filepath.Join(root, ModuleDir, name+".ko")
		f, err := os.Open(p)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		if err := sys.LoadModule(int(f.Fd()), ""); err != nil {
			failed = append(failed, fmt.Sprintf("%s: finit_module: %v", name, err))
		}
		f.Close()
	}
	return failed
}

// missingModules returns why workload w cannot run in the guest whose
// root is root and whose config is cfg (nil when unknown), or "".
func missingModules(root, w string, cfg map[string]string, loadErrs []string) string {
	var missing []string
	for _, m := range WorkloadModules[w] {
		if _, err := os.Stat(filepath.Join(root, "sys", "module", m.Name)); err == nil {
			continue // loaded, or built in with parameters
		}
		switch v, known := cfg[m.Option]; {
		case cfg == nil:
			// Nothing tells: let the workload try and report.
		case known && v == "y":
		case known && v == "m":
			missing = append(missing, fmt.Sprintf("%s (%s=m, not loaded)", m.Name, m.Option))
		default:
			missing = append(missing, fmt.Sprintf("%s (%s is not set)", m.Name, m.Option))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	r := "needs kernel modules the guest does not have: " + strings.Join(missing, ", ") +
		"; give the kernel's modules with --modules DIR"
	if len(loadErrs) > 0 {
		r += " (loading failed: " + strings.Join(loadErrs, "; ") + ")"
	}
	return r
}

// parseConfigValues reads the CONFIG_X=v lines of a kernel config.
func parseConfigValues(data []byte) map[string]string {
	cfg := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "CONFIG_") {
			cfg[k] = strings.Trim(v, `"`)
		}
	}
	return cfg
}
