package sysinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseCPUInfo parses the cpuinfo files of our fixture trees and of
// the shared fixtures (read in place), one per layout.
func TestParseCPUInfo(t *testing.T) {
	cases := []struct {
		name  string
		path  []string // under the shared fixtures, or testdata when local
		local bool
		want  CPUInfo
	}{
		{"this VM", []string{"vm-6.18", "proc", "cpuinfo"}, true, CPUInfo{
			Arch: "x86_64", Processors: 2, Vendor: "GenuineIntel", Model: "Intel(R) Xeon(R) Processor",
			Family: "6", ModelID: "207", Stepping: "2", Microcode: "0x1", Hypervisor: true}},
		{"AMD EPYC 7451 bare metal", []string{"x86_64-amd-epyc-7451-util-linux", "proc", "cpuinfo"}, false, CPUInfo{
			Arch: "x86_64", Processors: 96, Vendor: "AuthenticAMD", Model: "AMD EPYC 7451 24-Core Processor",
			Family: "23", ModelID: "1", Stepping: "2", Microcode: "0x8001227"}},
		{"POWER10 hand-written", []string{"power10-7.1", "proc", "cpuinfo"}, true, CPUInfo{
			Arch: "ppc64le", Processors: 8, Vendor: "IBM", Model: "POWER10 (architected), altivec supported",
			Family: "POWER10", Stepping: "2.0 (pvr 0080 0200)", Platform: "pSeries", Machine: "CHRP IBM,9080-HEX"}},
		{"POWER10 QEMU mail paste", []string{"ppc64le-power10", "proc", "cpuinfo.qemu-tcg-pseries-5.8-rc1.email-paste"}, false, CPUInfo{
			Arch: "ppc64le", Processors: 4, Vendor: "IBM", Model: "POWER10 (architected), altivec supported",
			Family: "POWER10", Stepping: "1.0 (pvr 0080 0100)", Platform: "pSeries", Machine: "CHRP IBM pSeries (emulated by qemu)"}},
		{"POWER9 LPAR tail", []string{"ppc64le-power9", "proc", "cpuinfo.tail-excerpt.pseries-IBM-9008-22L"}, false, CPUInfo{
			Arch: "ppc64le", Vendor: "IBM", Model: "POWER9 (architected), altivec supported",
			Family: "POWER9", Stepping: "2.2 (pvr 004e 0202)", Platform: "pSeries", Machine: "CHRP IBM,9008-22L"}},
		{"s390x z13 LPAR", []string{"s390x-z13-lpar-drawer-util-linux", "proc", "cpuinfo"}, false, CPUInfo{
			Arch: "s390x", Processors: 8, Vendor: "IBM/S390", Model: "IBM z13 (2964)", Family: "z13",
			Stepping: "00", Machine: "2964"}},
		{"arm64 GB10 big.LITTLE", []string{"arm64-nvidia-dgx-gb10-hwloc", "proc", "cpuinfo"}, false, CPUInfo{
			Arch: "aarch64", Processors: 20, Vendor: "ARM", Model: "Cortex-A725 (0xd87) + Cortex-X925 (0xd85)",
			Family: "ARMv8", Stepping: "r0p1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p string
			if c.local {
				p = filepath.Join(append([]string{"testdata"}, c.path...)...)
			} else {
				p = shared(t, c.path...)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseCPUInfo(data)
			if err != nil {
				t.Fatal(err)
			}
			w := c.want
			if w.Processors == 0 {
				w.Processors = got.Processors // a tail excerpt: count unchecked
			}
			if *got != w {
				t.Errorf("got  %+v\nwant %+v", *got, w)
			}
		})
	}
}

func TestParseCPUInfoErrors(t *testing.T) {
	if _, err := ParseCPUInfo(nil); err == nil || !strings.Contains(err.Error(), "no \"key : value\" lines") {
		t.Errorf("empty: %v", err)
	}
	ci, err := ParseCPUInfo([]byte("Hardware\t: Sun4v\nmystery\t: yes\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown layout (first key "Hardware")`) || ci == nil {
		t.Errorf("unknown layout: %+v, %v", ci, err)
	}
}
