package calibrate

import (
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// TestTwins checks what makes two sets A/A sessions the store may learn
// from: the same labels, run conditions, kernel build and command line,
// and no performance-relevant difference of their fingerprints.
func TestTwins(t *testing.T) {
	mk := func(change func(*result.Set)) *result.Set {
		fp := &sysinfo.Fingerprint{}
		fp.Kernel.Release = sysinfo.Fact{Value: "6.18.0"}
		fp.Kernel.Version = sysinfo.Fact{Value: "#1 SMP PREEMPT_DYNAMIC"}
		fp.Kernel.Cmdline = sysinfo.Fact{Value: "ro quiet"}
		fp.RCU.Expedited = sysinfo.Fact{Value: "0"}
		s := &result.Set{Complete: true, Env: fp, Labels: map[string]string{"host": "h", "kernel": "6.18.0"},
			Conditions: map[string]string{result.CondCPUs: "all", result.CondVersion: "1"}}
		if change != nil {
			change(s)
		}
		return s
	}
	base := mk(nil)
	if !Twins(base, mk(nil)) {
		t.Fatal("two identical sets are not twins")
	}
	for name, change := range map[string]func(*result.Set){
		"a label":       func(s *result.Set) { s.Labels["patch"] = "v2" },
		"the placement": func(s *result.Set) { s.Conditions[result.CondCPUs] = "0" },
		"the build":     func(s *result.Set) { s.Env.Kernel.Version = sysinfo.Fact{Value: "#2 SMP PREEMPT_DYNAMIC"} },
		"the cmdline":   func(s *result.Set) { s.Env.Kernel.Cmdline = sysinfo.Fact{Value: "ro quiet preempt=full"} },
		"a knob":        func(s *result.Set) { s.Env.RCU.Expedited = sysinfo.Fact{Value: "1"} },
		"incomplete":    func(s *result.Set) { s.Complete = false },
		"no conditions": func(s *result.Set) { s.Conditions = nil },
	} {
		if Twins(base, mk(change)) {
			t.Errorf("sets that differ in %s are twins", name)
		}
	}
}
