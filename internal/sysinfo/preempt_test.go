package sysinfo

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParsePreempt(t *testing.T) {
	cases := []struct {
		name, in string
		current  string
		modes    []string
		err      string
	}{
		// Exact kernel bytes per preempt/FORMAT.md: each entry and a
		// space, then a newline.
		{"v5.12-v6.12", "none voluntary (full) \n", "full", []string{"none", "voluntary", "full"}, ""},
		{"v6.13 lazy arch", "(none) voluntary full lazy \n", "none", []string{"none", "voluntary", "full", "lazy"}, ""},
		{"v6.13 RT", "(full) lazy \n", "full", []string{"full", "lazy"}, ""},
		{"v7.0 default", "full (lazy) \n", "lazy", []string{"full", "lazy"}, ""},
		{"v7.0 full", "(full) lazy \n", "full", []string{"full", "lazy"}, ""},
		// Mail-quoted captures lost the trailing space.
		{"no trailing space", "none (voluntary) full lazy", "voluntary", []string{"none", "voluntary", "full", "lazy"}, ""},
		{"tabs and CRLF", "none\tvoluntary\t(full)\r\n", "full", []string{"none", "voluntary", "full"}, ""},
		{"empty", "", "", nil, "preempt file: empty"},
		{"tip-window empty line", " \n", "", nil, "preempt file: empty"},
		{"no current", "none voluntary full \n", "", nil, "no mode in parentheses"},
		{"two current", "(none) (full) \n", "", nil, "two current modes"},
		{"brackets", "none [full] \n", "", nil, `unexpected entry "[full]"`},
		{"empty parens", "none () \n", "", nil, `unexpected entry "()"`},
		{"upper case", "NONE (FULL) \n", "", nil, "unexpected entry"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur, modes, err := ParsePreempt([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cur != c.current || !reflect.DeepEqual(modes, c.modes) {
				t.Errorf("got %q %q, want %q %q", cur, modes, c.current, c.modes)
			}
		})
	}
}

// TestParsePreemptCaptures parses the real reads of the preempt file in
// the shared fixtures (preempt/captures), each named for its mode.
func TestParsePreemptCaptures(t *testing.T) {
	dir := shared(t, "preempt", "captures")
	want := map[string]string{
		"fedora38-based-6.5.0-rc1-debug-x86_64.txt":                     "full",
		"opensuse-tumbleweed-6.16.3-1-PREEMPT_VOLUNTARY.txt":            "voluntary",
		"powerpc-power10-lpar-dev-kernel-2024-11.after-echo-full.txt":   "full",
		"powerpc-power10-lpar-dev-kernel-2024-11.after-echo-lazy.txt":   "lazy",
		"powerpc-power10-lpar-dev-kernel-2024-11.boot-default-none.txt": "none",
		"sles-6.4-and-5.14-PREEMPT_VOLUNTARY.txt":                       "none",
	}
	for name, mode := range want {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got, _, err := ParsePreempt(data)
		if err != nil || got != mode {
			t.Errorf("%s: %q, %v; want %q", name, got, err, mode)
		}
	}
}

func TestBootLogPreempt(t *testing.T) {
	cases := []struct{ name, log, want string }{
		{"dmesg", "[    0.057178] Dynamic Preempt: none\n[    0.057229] rcu: Preemptible hierarchical RCU implementation.\n", "none"},
		{"kmsg message", "Dynamic Preempt: full\n", "full"},
		// Changed through debugfs after boot: the last line is current.
		{"changed later", "[0.05] Dynamic Preempt: voluntary\n[812.3] Dynamic Preempt: full\n", "full"},
		{"none", "[0.0] Linux version 6.15.0\n", ""},
		{"garbage after tag", "Dynamic Preempt: (undef)\n", ""},
		{"tag at end", "Dynamic Preempt:", ""},
	}
	for _, c := range cases {
		if got := bootLogPreempt(c.log); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPreemptionSources checks the order of the witnesses: debugfs, then
// the boot log, then preempt= (only on a dynamic kernel), then the build.
func TestPreemptionSources(t *testing.T) {
	const dyn = "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n"
	const static = "CONFIG_PREEMPT_VOLUNTARY=y\n"
	cases := []struct {
		name                     string
		config, debugfs, cmdline string
		bootLog                  string
		mode, source             string
	}{
		{"debugfs wins", dyn, "none voluntary (full) lazy \n", "preempt=none", "Dynamic Preempt: lazy\n", "full", "debugfs (/sys/kernel/debug/sched/preempt)"},
		{"boot log next", dyn, "", "preempt=none", "Dynamic Preempt: lazy\n", "lazy", "boot log (given)"},
		{"cmdline next", dyn, "", "quiet preempt=none", "", "none", "cmdline (preempt=none)"},
		{"build default", dyn, "", "quiet", "", "voluntary", "build default (CONFIG_PREEMPT_VOLUNTARY=y)"},
		{"static ignores preempt=", static, "", "preempt=full", "", "voluntary", "static build (CONFIG_PREEMPT_VOLUNTARY=y, no PREEMPT_DYNAMIC)"},
		{"garbled debugfs skipped", dyn, "what\n", "", "Dynamic Preempt: none\n", "none", "boot log (given)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(rel, s string) {
				if s != "" {
					writeFile(t, root, rel, s)
				}
			}
			write("proc/sys/kernel/osrelease", "6.16.0\n")
			write("boot/config-6.16.0", c.config)
			write(preemptFile, c.debugfs)
			write("proc/cmdline", c.cmdline+"\n")
			fp := Collect(FS{Root: root}, Options{BootLog: c.bootLog})
			if fp.Preempt.Mode.Value != c.mode || fp.Preempt.Mode.Source != c.source {
				t.Errorf("mode = %#v, want %q from %q", fp.Preempt.Mode, c.mode, c.source)
			}
		})
	}
}

func TestPreemptFile512(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, preemptFile512, "none voluntary (full) \n")
	fp := Collect(FS{Root: root}, Options{})
	if fp.Preempt.Mode.Value != "full" || fp.Preempt.Mode.Source != "debugfs (/sys/kernel/debug/sched_preempt)" {
		t.Errorf("v5.12 path: mode = %#v", fp.Preempt.Mode)
	}
}
