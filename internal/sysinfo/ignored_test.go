package sysinfo

import (
	"strings"
	"testing"
)

// TestIgnoredParams checks seed 000's trap and its kin: a parameter the
// kernel's config makes void is said, with the mode the build keeps; one
// the config serves is not; and two boots that differ only in an ignored
// preempt= say that their kernels do not differ.
func TestIgnoredParams(t *testing.T) {
	fp := func(cmd map[string]string, cfg Config) *Fingerprint {
		c := &collector{fp: &Fingerprint{}, cmdline: cmd, config: cfg}
		c.fp.Preempt.Model = Fact{Value: "voluntary", Source: "kernel config"}
		c.fp.Preempt.Mode = Fact{Value: "voluntary", Source: "static build"}
		if v, ok := cmd["preempt"]; ok {
			c.fp.Preempt.Cmdline = Fact{Value: v, Source: "/proc/cmdline"}
		}
		c.ignoredParams()
		return c.fp
	}
	static := Config{"CONFIG_PREEMPT_VOLUNTARY": "y"}
	full := fp(map[string]string{"preempt": "full", "nohz_full": "1", "isolcpus": "1"}, static)
	want := []string{
		"nohz_full=1 on the command line is ignored: this kernel has no NO_HZ_FULL",
		"preempt=full on the command line is ignored: this kernel has no PREEMPT_DYNAMIC; the mode is the build's (voluntary)",
	}
	if strings.Join(full.Ignored, "\n") != strings.Join(want, "\n") {
		t.Errorf("ignored %q, want %q", full.Ignored, want)
	}
	if !strings.Contains(strings.Join(Warnings(full, nil), "\n"), want[1]) {
		t.Errorf("no warning of the ignored preempt=: %q", Warnings(full, nil))
	}
	if dyn := fp(map[string]string{"preempt": "full"}, Config{"CONFIG_PREEMPT_DYNAMIC": "y"}); len(dyn.Ignored) != 0 {
		t.Errorf("a PREEMPT_DYNAMIC kernel ignores %q", dyn.Ignored)
	}
	none := fp(map[string]string{"preempt": "none"}, static)
	for _, d := range Diff(none, full) {
		if d.Field == "preempt.mode" {
			if !d.Same || !strings.HasPrefix(d.Note, "both voluntary: the command lines differ but the kernels do not") {
				t.Errorf("preempt.mode: %+v", d)
			}
			return
		}
	}
	t.Error("the diff does not show the run-time mode")
}
