package sysinfo

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWarnings(t *testing.T) {
	// base is a quiet bare-metal machine with 8 CPUs, SMT on, siblings
	// (0,4) (1,5) (2,6) (3,7), performance governor, turbo off.
	base := func() *Fingerprint {
		fp := &Fingerprint{}
		fp.CPU.Online = Fact{Value: "0-7"}
		fp.CPU.SMTActive = Fact{Value: "1"}
		fp.CPU.ThreadSiblings = map[int]string{0: "0,4", 1: "1,5", 2: "2,6", 3: "3,7", 4: "0,4", 5: "1,5", 6: "2,6", 7: "3,7"}
		fp.CPU.Governor = Fact{Value: "performance"}
		fp.CPU.Boost = Fact{Value: "off", Source: "/sys/devices/system/cpu/cpufreq/boost"}
		fp.LoadAvg = Fact{Value: "0.10 0.05 0.01"}
		fp.OtherRunnable = Fact{Value: "0"}
		fp.Virtualization = Fact{Value: "none"}
		return fp
	}
	cases := []struct {
		name   string
		change func(fp *Fingerprint)
		pinned []int
		want   []string // substrings, one per warning, in order
	}{
		{"quiet", func(*Fingerprint) {}, []int{0, 4}, []string{"pinned CPUs are SMT siblings of one core: 0,4"}},
		{"quiet, whole cores", func(*Fingerprint) {}, nil, nil},
		{"governor", func(fp *Fingerprint) { fp.CPU.Governor = Fact{Value: "performance,powersave"} }, nil,
			[]string{`cpufreq governor is "performance,powersave", not "performance"`}},
		{"turbo", func(fp *Fingerprint) {
			fp.CPU.Boost = Fact{Value: "on", Source: "/sys/devices/system/cpu/intel_pstate/no_turbo"}
		}, nil,
			[]string{"turbo/boost is on (/sys/devices/system/cpu/intel_pstate/no_turbo)"}},
		// A load average left by kdelta's own runs, which ended: nothing
		// competes now (issue 12: 219 after 800-thread runs).
		{"load average of past runs", func(fp *Fingerprint) { fp.LoadAvg = Fact{Value: "219.07 151.22 70.36"} }, nil, nil},
		// 4 is exactly half of 8 CPUs: not above the threshold.
		{"runnable at threshold", func(fp *Fingerprint) { fp.OtherRunnable = Fact{Value: "4"} }, nil, nil},
		{"runnable above", func(fp *Fingerprint) { fp.OtherRunnable = Fact{Value: "5"} }, nil,
			[]string{"5 runnable tasks other than kdelta's at start, more than 50% of the 8 online CPUs: other tasks compete with the runs"}},
		{"mounted", func(fp *Fingerprint) {
			fp.Mounts = []string{"tracefs on /sys/kernel/tracing", "debugfs on /sys/kernel/debug"}
		}, nil,
			[]string{"mounted tracefs on /sys/kernel/tracing, which was not mounted, to count tracepoints, as perf does when root; it stays mounted",
				"mounted debugfs on /sys/kernel/debug, which was not mounted, to read the preemption mode; it stays mounted"}},
		{"sibling left free", func(*Fingerprint) {}, []int{0, 1},
			[]string{"pinned CPUs have SMT siblings left to other tasks: 0 (siblings 4), 1 (siblings 5)"}},
		{"SMT off", func(fp *Fingerprint) { fp.CPU.SMTActive = Fact{Value: "0"} }, []int{0, 1}, nil},
		{"offline pinned", func(fp *Fingerprint) { fp.CPU.Online = Fact{Value: "0-3"} }, []int{2, 3, 9},
			[]string{"pinned CPUs 9 are not online (0-3)", "2 (siblings 6), 3 (siblings 7)"}},
		{"vm", func(fp *Fingerprint) { fp.Virtualization = Fact{Value: "vm (QEMU)"} }, nil,
			[]string{"the machine is virtualized (vm (QEMU))"}},
		{"unknowns say nothing", func(fp *Fingerprint) {
			fp.CPU.Governor = Fact{Unknown: "no cpufreq"}
			fp.CPU.Boost = Fact{Unknown: "no boost"}
			fp.Virtualization = Fact{Unknown: "?"}
			fp.OtherRunnable = Fact{Unknown: "no /proc/loadavg"}
			fp.LoadAvg = Fact{Value: "99 99 99"}
			fp.CPU.ThreadSiblings = nil
		}, []int{0, 1}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fp := base()
			c.change(fp)
			got := Warnings(fp, c.pinned)
			if len(got) != len(c.want) {
				t.Fatalf("warnings %q, want %d", got, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestWarningsFedora runs the tuning check on the fedora-x86_64 tree, a
// KVM guest with two SMT cores, pinned to one core's two threads.
func TestWarningsFedora(t *testing.T) {
	fp := Collect(FS{Root: filepath.Join("testdata", "fedora-x86_64")}, Options{})
	got := Warnings(fp, []int{0, 1})
	want := []string{
		"pinned CPUs are SMT siblings of one core: 0-1; they share its execution units",
		"the machine is virtualized (vm (QEMU Standard PC (Q35 + ICH9, 2009))): steal time and the host's vCPU placement add noise",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
