package sysinfo

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

func TestParseConfig(t *testing.T) {
	in := "#\n# Automatically generated file; DO NOT EDIT.\n# Linux/x86 6.18 Kernel Configuration\n#\n" +
		"CONFIG_PREEMPT_DYNAMIC=y\r\n" +
		"# CONFIG_PREEMPT is not set\n" +
		"CONFIG_HZ=250\n" +
		"CONFIG_LSM=\"landlock,lockdown,yama\"\n" +
		"CONFIG_CMDLINE=\"a=b c=d\"\n" +
		"\n" +
		"# end of RCU Subsystem\n" +
		"CONFIG_VETH=m\n"
	got, err := ParseConfig([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		"CONFIG_PREEMPT_DYNAMIC": "y",
		"CONFIG_PREEMPT":         "n",
		"CONFIG_HZ":              "250",
		"CONFIG_LSM":             `"landlock,lockdown,yama"`,
		"CONFIG_CMDLINE":         `"a=b c=d"`,
		"CONFIG_VETH":            "m",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if !got.On("CONFIG_VETH") || got.On("CONFIG_PREEMPT") || got.On("CONFIG_ABSENT") || got.Get("CONFIG_ABSENT") != "n" {
		t.Error("On/Get disagree with the parsed values")
	}
}

func TestParseConfigErrors(t *testing.T) {
	in := "CONFIG_A=y\nthis is not a config\nCONFIG_B=y\nFOO=bar\n=y\nCONFIG_=y\nCONFIG_A-B=y\nx\ny\nz\n"
	cfg, err := ParseConfig([]byte(in))
	if len(cfg) != 2 || cfg["CONFIG_A"] != "y" || cfg["CONFIG_B"] != "y" {
		t.Errorf("good lines lost: %v", cfg)
	}
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Text != "this is not a config" {
		t.Fatalf("err = %v, want a ConfigError for line 2", err)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != maxConfigErrors {
		t.Errorf("%d errors, want at most %d", n, maxConfigErrors)
	}
	if got := ce.Error(); got != `config line 2: not an option: "this is not a config"` {
		t.Errorf("message %q", got)
	}
}

func TestPerfRelevant(t *testing.T) {
	for name, want := range map[string]bool{
		"CONFIG_PREEMPT_DYNAMIC": true, "PREEMPT_RCU": true, "CONFIG_HZ_1000": true,
		"CONFIG_NO_HZ_FULL": true, "CONFIG_RCU_LAZY": true, "CONFIG_TASKS_TRACE_RCU": true,
		"CONFIG_SCHEDSTATS": true, "CONFIG_SCHED_SMT": true, "CONFIG_SECURITY_SELINUX": true,
		"CONFIG_AUDITSYSCALL": true, "CONFIG_MITIGATION_RETPOLINE": true, "CONFIG_NR_CPUS": true,
		"CONFIG_NUMA_BALANCING": true, "CONFIG_TRANSPARENT_HUGEPAGE": true, "CONFIG_MEMBARRIER": true,
		"CONFIG_BRIDGE": true, "CONFIG_VETH": true, "CONFIG_LOCKDEP": true, "CONFIG_KASAN": true,
		"CONFIG_DEBUG_PREEMPT": true,
		"CONFIG_ACPI":          false, "CONFIG_BRIDGE_EBT_ARP": false, "CONFIG_DRM_I915_PREEMPT_TIMEOUT": false,
		"CONFIG_EXT4_FS": false,
	} {
		if got := PerfRelevant(name); got != want {
			t.Errorf("PerfRelevant(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestSharedFedoraConfigs reads the Fedora dist-git input configs in place
// (x86_64-fedora and ppc64le-fedora in the shared fixtures): they list
// CONFIG_HZ_<N>=y without the CONFIG_HZ that Kconfig derives, and the
// move from PREEMPT_VOLUNTARY to PREEMPT_LAZY at 7.x on ppc64le.
func TestSharedFedoraConfigs(t *testing.T) {
	cases := []struct {
		dir, file       string
		model, hz, arch string
		dynamic, sched  bool
	}{
		{"x86_64-fedora", "kernel-x86_64-fedora.config.6.19.14-108.f42", "lazy", "1000", "x86_64", true, true},
		{"x86_64-fedora", "kernel-x86_64-fedora.config.7.1.7-200.f44", "lazy", "1000", "x86_64", true, true},
		{"ppc64le-fedora", "kernel-ppc64le-fedora.config.6.19.14-108.f42", "voluntary", "100", "ppc64le", true, true},
		{"ppc64le-fedora", "kernel-ppc64le-fedora.config.7.1.7-200.f44", "lazy", "100", "ppc64le", true, true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(shared(t, c.dir, "config", c.file))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := ParseConfig(data)
			if err != nil {
				t.Errorf("parse: %v", err)
			}
			if m := modelFromConfig(cfg); m.Value != c.model {
				t.Errorf("model %#v, want %s", m, c.model)
			}
			if hz, _ := hzFromConfig(cfg); hz != c.hz {
				t.Errorf("HZ %q, want %s", hz, c.hz)
			}
			if a := archFromConfig(cfg); a != "" && a != c.arch {
				t.Errorf("arch %q, want %s", a, c.arch)
			}
			if cfg.On("CONFIG_PREEMPT_DYNAMIC") != c.dynamic || cfg.On("CONFIG_SCHEDSTATS") != c.sched {
				t.Errorf("PREEMPT_DYNAMIC %v, SCHEDSTATS %v", cfg.On("CONFIG_PREEMPT_DYNAMIC"), cfg.On("CONFIG_SCHEDSTATS"))
			}
		})
	}
}

// TestConfigGzip checks that a config read from /boot is stored
// compressed, deterministically, and reads back whole.
func TestConfigGzip(t *testing.T) {
	text := []byte("CONFIG_A=y\n# CONFIG_B is not set\n")
	a, b := gzipBytes(text), gzipBytes(text)
	if !reflect.DeepEqual(a, b) {
		t.Error("gzipBytes is not deterministic")
	}
	back, err := gunzip(a)
	if err != nil || string(back) != string(text) {
		t.Errorf("gunzip = %q, %v", back, err)
	}
	if _, err := gunzip([]byte("CONFIG_A=y")); err == nil {
		t.Error("gunzip accepted text")
	}
}

// TestConfigOption reads CONFIG_SCHEDSTATS from the fingerprints of two
// captured machines, "# ... is not set" in the development VM's
// /proc/config.gz and =y in the Fedora guest's /boot config, and refuses
// to answer where a "n" would be a guess: no config read, or an option the
// fingerprint does not keep.
func TestConfigOption(t *testing.T) {
	for _, tc := range []struct {
		tree, option string
		value        string
		known        bool
	}{
		{"vm-6.18", "CONFIG_SCHEDSTATS", "n", true},
		{"vm-6.18", "SCHEDSTATS", "n", true},
		{"fedora-x86_64", "CONFIG_SCHEDSTATS", "y", true},
		{"fedora-x86_64", "CONFIG_EXT4_FS", "", false},
	} {
		fp := collectTree(t, tc.tree)
		if v, known := fp.Config.Option(tc.option); v != tc.value || known != tc.known {
			t.Errorf("%s: Option(%s) = %q, %v; want %q, %v", tc.tree, tc.option, v, known, tc.value, tc.known)
		}
	}
	// An option the perf subset keeps but this config does not mention
	// is not set, as Kconfig means it.
	k := KernelConfig{Source: "/proc/config.gz", Perf: map[string]string{"CONFIG_HZ": "250"}}
	if v, known := k.Option("CONFIG_SCHEDSTATS"); v != "n" || !known {
		t.Errorf("absent option: %q, %v; want n, known", v, known)
	}
	if v, known := (KernelConfig{Unknown: "no config"}).Option("CONFIG_SCHEDSTATS"); v != "" || known {
		t.Errorf("unknown config: %q, %v; want not known", v, known)
	}
}
