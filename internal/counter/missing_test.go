package counter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/testenv"
)

// machineTree is one of sysinfo's captures of a real machine's /proc and
// /sys (internal/sysinfo/testdata, see its README), read in place: the
// fingerprint that explains a missing file is taken from the same tree,
// by the same code as on a live machine.
func machineTree(t *testing.T, name string) string {
	t.Helper()
	root := filepath.Join("..", "sysinfo", "testdata", name)
	if _, err := os.Stat(root); err != nil {
		testenv.Skipf(t, "sysinfo capture missing: %v", err)
	}
	return root
}

// TestCheckMonitors: a missing /proc/schedstat is explained from the
// fingerprint's kernel config. vm-6.18 is the development VM, whose
// /proc/config.gz says "# CONFIG_SCHEDSTATS is not set" and which has no
// /proc/schedstat; fedora-x86_64's /boot config sets CONFIG_SCHEDSTATS=y
// but the capture holds no /proc/schedstat, which is then not the
// kernel's doing; an empty tree has no config at all.
func TestCheckMonitors(t *testing.T) {
	empty := t.TempDir()
	v17 := filepath.Join("testdata", "schedstat-v17")
	for _, tc := range []struct {
		name, root string
		// env is the fingerprint of this tree ("") or of another, "-"
		// for none.
		env     string
		monitor string
		want    string
	}{
		{"built without", machineTree(t, "vm-6.18"), "", "schedstat",
			"this kernel is built without CONFIG_SCHEDSTATS (no /proc/schedstat)"},
		{"built with", machineTree(t, "fedora-x86_64"), "", "schedstat",
			"not available: /proc/schedstat does not exist, though the kernel is built with CONFIG_SCHEDSTATS=y (is /proc mounted?)"},
		// The reason the config is unknown follows, as the fingerprint
		// says it.
		{"config unknown", empty, "", "schedstat",
			"not available: /proc/schedstat does not exist (it needs CONFIG_SCHEDSTATS; the kernel config is unknown: not available: /proc/config.gz: "},
		{"no fingerprint", empty, "-", "schedstat",
			"not available: /proc/schedstat does not exist (it needs CONFIG_SCHEDSTATS; the kernel config is unknown: no fingerprint)"},
		// The file is there: whatever the config says, it is read.
		{"present", v17, machineTree(t, "vm-6.18"), "schedstat", ""},
		{"no config option", empty, "", "softirqs", "not available: /proc/softirqs does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env *sysinfo.Fingerprint
			switch tc.env {
			case "":
				env = fingerprintOf(t, tc.root)
			case "-":
			default:
				env = fingerprintOf(t, tc.env)
			}
			specs, err := ParseMonitors(tc.monitor + "@1ms+1ms")
			if err != nil {
				t.Fatal(err)
			}
			got := CheckMonitors(specs, tc.root, env)
			t.Logf("Missing: %q", got[0].Missing)
			if specs[0].Missing != "" {
				t.Error("CheckMonitors changed its argument")
			}
			if m := got[0].Missing; m != tc.want && (!strings.HasSuffix(tc.want, ": ") || !strings.HasPrefix(m, tc.want)) {
				t.Errorf("Missing = %q, want %q", m, tc.want)
			}
			if tc.want == "" {
				return
			}
			// A monitor known missing reads nothing, and every run
			// records the cause, window and all, whatever the run's
			// length: not "the run ended before the window".
			r := StartMonitors(got, tc.root)
			time.Sleep(5 * time.Millisecond)
			ms := r.Stop()
			if len(ms) != 1 || ms[0].Unavailable != got[0].Missing || ms[0].Window != "@1ms+1ms" || ms[0].Values != nil {
				t.Errorf("monitors %+v, want the cause %q", ms, got[0].Missing)
			}
		})
	}
}

// fingerprintOf takes the fingerprint of the machine tree under root.
func fingerprintOf(t *testing.T, root string) *sysinfo.Fingerprint {
	t.Helper()
	return sysinfo.Collect(sysinfo.FS{Root: root}, sysinfo.Options{BootLog: "none"})
}

func TestEnablesSchedstats(t *testing.T) {
	missing := MonitorSpec{Name: "schedstat", Missing: "this kernel is built without CONFIG_SCHEDSTATS (no /proc/schedstat)"}
	for _, tc := range []struct {
		list  string
		specs []MonitorSpec
		want  bool
	}{
		{"schedstat", []MonitorSpec{{Name: "schedstat"}}, true},
		{"stat, schedstat@20s+5s", []MonitorSpec{{Name: "stat"}, {Name: "schedstat", Start: 20 * time.Second, Duration: 5 * time.Second}}, true},
		// all takes schedstat as it is: the default changes no setting.
		{"all", []MonitorSpec{{Name: "stat"}, {Name: "schedstat"}}, false},
		{"stat", []MonitorSpec{{Name: "stat"}}, false},
		// A kernel without it has nothing to switch on: no warning that
		// the sysctl is missing hides the cause.
		{"schedstat@1s+1s", []MonitorSpec{missing}, false},
	} {
		if got := EnablesSchedstats(tc.list, tc.specs); got != tc.want {
			t.Errorf("EnablesSchedstats(%q, %+v) = %v, want %v", tc.list, tc.specs, got, tc.want)
		}
	}
}
