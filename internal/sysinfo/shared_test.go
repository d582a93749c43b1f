package sysinfo

import (
	"testing"
)

// TestSharedTrees collects the machine trees of the shared fixtures in
// place. They are partial captures (cpuinfo, some of sysfs, sometimes
// proc/version), so this checks what they do hold and that everything they
// lack is unknown with a reason.
func TestSharedTrees(t *testing.T) {
	cases := []struct {
		dir                    string
		arch, model, smt, virt string
		// mode, when set, is the expected run-time preemption mode.
		mode, modeSource string
	}{
		{dir: "x86_64-amd-epyc-7451-util-linux", arch: "x86_64", model: "AMD EPYC 7451 24-Core Processor", smt: "on", virt: "none"},
		{dir: "s390x-z196-zvm-guest-util-linux", arch: "s390x", model: "IBM z196 (2817)", virt: "vm (lpar > z/VM 6.1.0)"},
		{dir: "s390x-z196-kvm-guest-util-linux", arch: "s390x", model: "IBM z196 (2817)", virt: "vm (lpar > KVM/Linux)"},
		{dir: "s390x-z13-nested-virt-util-linux", arch: "s390x", model: "IBM z13 (2964)", smt: "notsupported", virt: "vm (lpar > KVM/Linux > z/VM 6.4.0)"},
		{dir: "s390x-z196-lpar-util-linux", arch: "s390x", model: "IBM z196 (2817)", virt: "lpar"},
		// uname -v "#313 SMP PREEMPT": a static full-preemption build.
		{dir: "arm64-hisilicon-kunpeng920-128cpu-hwloc", arch: "aarch64", model: "Kunpeng-920 (0xd01)",
			mode: "full", modeSource: "static build (uname -v (PREEMPT), no PREEMPT_DYNAMIC)"},
		{dir: "arm64-nvidia-dgx-gb10-hwloc", arch: "aarch64", smt: "notsupported"},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			fp := Collect(FS{Root: shared(t, c.dir)}, Options{})
			checkFacts(t, fp)
			check := func(what string, f Fact, want string) {
				if want != "" && f.Value != want {
					t.Errorf("%s = %#v, want %q", what, f, want)
				}
			}
			check("arch", fp.Arch, c.arch)
			check("cpu model", fp.CPU.Model, c.model)
			check("smt control", fp.CPU.SMTControl, c.smt)
			check("virtualization", fp.Virtualization, c.virt)
			check("preempt mode", fp.Preempt.Mode, c.mode)
			if c.modeSource != "" && fp.Preempt.Mode.Source != c.modeSource {
				t.Errorf("mode source %q, want %q", fp.Preempt.Mode.Source, c.modeSource)
			}
		})
	}
}
