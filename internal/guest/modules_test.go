package guest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMissingModules(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "sys", "module", "veth"), 0o755)
	tests := []struct {
		name     string
		workload string
		cfg      map[string]string
		loadErrs []string
		want     []string // "" for no reason
	}{
		{name: "needs nothing", workload: "syscall", cfg: map[string]string{}},
		{name: "module, not loaded", workload: "bridge", cfg: map[string]string{"CONFIG_BRIDGE": "m", "CONFIG_VETH": "m"},
			want: []string{"bridge (CONFIG_BRIDGE=m, not loaded)", "--modules"}},
		{name: "built in", workload: "bridge", cfg: map[string]string{"CONFIG_BRIDGE": "y", "CONFIG_VETH": "m"}},
		{name: "not built", workload: "bridge", cfg: map[string]string{"CONFIG_VETH": "y"}, want: []string{"CONFIG_BRIDGE is not set"}},
		{name: "no config: let it try", workload: "bridge", cfg: nil},
		{name: "load failure is told", workload: "bridge", cfg: map[string]string{"CONFIG_BRIDGE": "m"},
			loadErrs: []string{"bridge: finit_module: exec format error"}, want: []string{"loading failed: bridge: finit_module"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := missingModules(root, tt.workload, tt.cfg, tt.loadErrs)
			if len(tt.want) == 0 && got != "" {
				t.Fatalf("reason %q, want none", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("reason %q lacks %q", got, w)
				}
			}
			if strings.Contains(got, "veth") {
				t.Errorf("veth is loaded (/sys/module/veth) but named: %q", got)
			}
		})
	}
}

func TestParseConfigValues(t *testing.T) {
	cfg := parseConfigValues([]byte("# comment\nCONFIG_BRIDGE=m\nCONFIG_HZ=250\n# CONFIG_FOO is not set\nCONFIG_S=\"x y\"\n"))
	if cfg["CONFIG_BRIDGE"] != "m" || cfg["CONFIG_HZ"] != "250" || cfg["CONFIG_S"] != "x y" {
		t.Errorf("parsed %v", cfg)
	}
	if _, ok := cfg["CONFIG_FOO"]; ok {
		t.Error("an option that is not set got a value")
	}
}

// TestResolveModules reads the dependencies of bridge from the modules of
// the test kernel's package (unpacked, never depmod'ed) and orders them.
