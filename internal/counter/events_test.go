package counter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/sys"
)

// tracefsTree makes a root with a tracefs holding raw_syscalls:sys_enter
// (id 21) and sched:sched_switch (id 322) under dir ("sys/kernel/tracing"
// or "sys/kernel/debug/tracing").
func tracefsTree(t testing.TB, dir string) string {
	t.Helper()
	root := t.TempDir()
	for tp, id := range map[string]string{"raw_syscalls/sys_enter": "21\n", "sched/sched_switch": "322\n"} {
		p := filepath.Join(root, dir, "events", tp)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "id"), []byte(id), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestParseEvents(t *testing.T) {
	root := tracefsTree(t, "sys/kernel/tracing")
	const (
		hw    = sys.PerfTypeHardware
		sw    = sys.PerfTypeSoftware
		cache = sys.PerfTypeHWCache
		tp    = sys.PerfTypeTracepoint
		raw   = sys.PerfTypeRaw
	)
	for _, tc := range []struct {
		name   string
		typ    uint32
		config uint64
		unit   string
		excl   string // which of u, k, h are excluded
	}{
		{"task-clock", sw, sys.PerfCountSWTaskClock, "ns", ""},
		{"cpu-clock", sw, sys.PerfCountSWCPUClock, "ns", ""},
		{"context-switches", sw, sys.PerfCountSWContextSwitches, "", ""},
		{"cs", sw, sys.PerfCountSWContextSwitches, "", ""},
		{"cpu-migrations", sw, sys.PerfCountSWCPUMigrations, "", ""},
		{"migrations", sw, sys.PerfCountSWCPUMigrations, "", ""},
		{"page-faults", sw, sys.PerfCountSWPageFaults, "", ""},
		{"faults", sw, sys.PerfCountSWPageFaults, "", ""},
		{"minor-faults", sw, sys.PerfCountSWPageFaultsMin, "", ""},
		{"major-faults", sw, sys.PerfCountSWPageFaultsMaj, "", ""},
		{"alignment-faults", sw, sys.PerfCountSWAlignmentFaults, "", ""},
		{"emulation-faults", sw, sys.PerfCountSWEmulationFaults, "", ""},
		{"cycles", hw, sys.PerfCountHWCPUCycles, "", ""},
		{"cpu-cycles", hw, sys.PerfCountHWCPUCycles, "", ""},
		{"CYCLES", hw, sys.PerfCountHWCPUCycles, "", ""},
		{"instructions", hw, sys.PerfCountHWInstructions, "", ""},
		{"branches", hw, sys.PerfCountHWBranchInstructions, "", ""},
		{"branch-misses", hw, sys.PerfCountHWBranchMisses, "", ""},
		{"cache-references", hw, sys.PerfCountHWCacheReferences, "", ""},
		{"cache-misses", hw, sys.PerfCountHWCacheMisses, "", ""},
		{"bus-cycles", hw, sys.PerfCountHWBusCycles, "", ""},
		{"ref-cycles", hw, sys.PerfCountHWRefCPUCycles, "", ""},
		{"stalled-cycles-frontend", hw, sys.PerfCountHWStalledCyclesFrontend, "", ""},
		{"idle-cycles-backend", hw, sys.PerfCountHWStalledCyclesBackend, "", ""},
		// Cache events: cache | op<<8 | result<<16.
		{"L1-dcache-loads", cache, 0x00000, "", ""},
		{"L1-dcache-load-misses", cache, 0x10000, "", ""},
		{"L1-dcache-stores", cache, 0x00100, "", ""},
		{"L1-dcache-prefetches", cache, 0x00200, "", ""},
		{"L1-dcache-misses", cache, 0x10000, "", ""},
		{"l1d-loads", cache, 0x00000, "", ""},
		{"L1-icache-load-misses", cache, 0x10001, "", ""},
		{"LLC-loads", cache, 0x00002, "", ""},
		{"LLC-load-misses", cache, 0x10002, "", ""},
		{"LLC-store-misses", cache, 0x10102, "", ""},
		{"dTLB-loads", cache, 0x00003, "", ""},
		{"dTLB-load-misses", cache, 0x10003, "", ""},
		{"dTLB-store-misses", cache, 0x10103, "", ""},
		{"iTLB-load-misses", cache, 0x10004, "", ""},
		{"branch-loads", cache, 0x00005, "", ""},
		{"branch-load-misses", cache, 0x10005, "", ""},
		{"node-loads", cache, 0x00006, "", ""},
		{"L1-dcache-speculative-read-miss", cache, 0x10200, "", ""},
		{"r1a8", raw, 0x1a8, "", ""},
		{"raw_syscalls:sys_enter", tp, 21, "", ""},
		{"sched:sched_switch", tp, 322, "", ""},
		{"cycles:u", hw, sys.PerfCountHWCPUCycles, "", "kh"},
		{"instructions:k", hw, sys.PerfCountHWInstructions, "", "uh"},
		{"task-clock:uk", sw, sys.PerfCountSWTaskClock, "ns", "h"},
		{"raw_syscalls:sys_enter:u", tp, 21, "", "kh"},
	} {
		evs, err := ParseEventsAt(root, tc.name)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		ev := evs[0]
		excl := ""
		if ev.ExcludeUser {
			excl += "u"
		}
		if ev.ExcludeKernel {
			excl += "k"
		}
		if ev.ExcludeHV {
			excl += "h"
		}
		if ev.Name != tc.name || ev.Type != tc.typ || ev.Config != tc.config || ev.Unit != tc.unit || excl != tc.excl || ev.Unsupported != "" {
			t.Errorf("%s = %+v (excluded %q), want type %d config %#x unit %q excluded %q", tc.name, ev, excl, tc.typ, tc.config, tc.unit, tc.excl)
		}
	}
}

func TestParseEventsErrors(t *testing.T) {
	root := tracefsTree(t, "sys/kernel/tracing")
	for _, tc := range []struct {
		list, want string
		unknown    bool
	}{
		{"", "empty event list", false},
		{"cycles,,cs", "empty event name", false},
		{"cycels", `event "cycels": unknown event`, true},
		{"cs,bogus-event", `event "bogus-event": unknown event`, true},
		{"cycles:x", `event "cycles:x": bad modifier "x"`, false},
		{"raw_syscalls:sys_enter:p", `bad modifier "p"`, false},
		{"raw_syscalls:nope", `event "raw_syscalls:nope": unknown event (no ` + filepath.Join(root, "sys/kernel/tracing/events/raw_syscalls/nope"), true},
		{"syscalls:sys_enter_*", "wildcards are not supported", false},
		{"../..:id", "unknown event", true},
		{"a:b:c:d", "unknown event", true},
		{"{cycles,instructions}", "{group} syntax is not supported", false},
		{"L1-icache-stores", "unknown event", true},
		{"LLC-loads-stores", "unknown event", true},
		{"rxyz", "unknown event", true},
		// rc looks like a raw event but with a tracepoint name after it
		// is looked up as a tracepoint subsystem.
		{"rc:rc_keydown", "no " + filepath.Join(root, "sys/kernel/tracing/events/rc/rc_keydown"), true},
	} {
		_, err := ParseEventsAt(root, tc.list)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEvents(%q): err = %v, want %q", tc.list, err, tc.want)
			continue
		}
		if errors.Is(err, ErrUnknownEvent) != tc.unknown {
			t.Errorf("ParseEvents(%q): errors.Is(ErrUnknownEvent) = %v", tc.list, !tc.unknown)
		}
	}
}

func TestParseEventsList(t *testing.T) {
	root := tracefsTree(t, "sys/kernel/tracing")
	evs, err := ParseEventsAt(root, " cs , cycles,cs,raw_syscalls:sys_enter")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, ","); got != "cs,cycles,raw_syscalls:sys_enter" {
		t.Errorf("names %q (duplicates go, order stays)", got)
	}
}

// TestTracepointLookup: tracefs in the old debugfs place is found; with no
// tracefs at all the tracepoint is kept as not supported, not an error.
func TestTracepointLookup(t *testing.T) {
	root := tracefsTree(t, "sys/kernel/debug/tracing")
	evs, err := ParseEventsAt(root, "raw_syscalls:sys_enter")
	if err != nil || evs[0].Config != 21 || evs[0].Unsupported != "" {
		t.Errorf("debugfs tracing: %+v, %v", evs, err)
	}
	evs, err = ParseEventsAt(t.TempDir(), "raw_syscalls:sys_enter")
	if err != nil || !strings.HasPrefix(evs[0].Unsupported, "not supported (tracefs is not mounted") {
		t.Errorf("no tracefs: %+v, %v", evs, err)
	}
	// A set with such an event reads it as unsupported, with no value.
	set, err := Attach(os.Getpid(), evs, Options{})
	if set == nil || !errors.Is(err, ErrNothingCounted) {
		t.Fatalf("Attach with nothing countable: %v, %v", set, err)
	}
	if c := set.Read()[0]; c.Unsupported == "" || c.Value != 0 {
		t.Errorf("counter %+v", c)
	}
}

// TestDefaultEventsHere parses the default list against this machine's
// tracefs.
func TestDefaultEventsHere(t *testing.T) {
	evs, err := ParseEvents(DefaultEventList + "," + DefaultProbeList)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 7 {
		t.Fatalf("%d events", len(evs))
	}
	for _, e := range evs[:6] {
		if e.Type == sys.PerfTypeTracepoint {
			t.Errorf("default event %+v is a tracepoint: it would slow every system call of a measured run", e)
		}
	}
	if tp := evs[6]; tp.Type != sys.PerfTypeTracepoint || (tp.Config == 0 && tp.Unsupported == "") {
		t.Errorf("raw_syscalls:sys_enter = %+v", tp)
	} else {
		t.Logf("raw_syscalls:sys_enter: id %d %s", tp.Config, tp.Unsupported)
	}
}
