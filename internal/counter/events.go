package counter

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

// DefaultEventList is the event list every run counts unless told
// otherwise: what perf stat shows by default that matters for kernel work.
// These events cost a measured run nothing it can see.
const DefaultEventList = "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions"

// DefaultProbeList is what warm-up runs count on top of the event list.
// A syscall tracepoint fires on every system call and slows a null-syscall
// loop by about half, so it is counted only on runs kept out of the
// statistics; its count is near-deterministic, so one run tells the
// syscalls per operation.
const DefaultProbeList = "raw_syscalls:sys_enter"

// An Event is one perf event to count, as ParseEvents resolved it.
type Event struct {
	// Name is the event as the user wrote it, modifiers included.
	Name   string
	Type   uint32
	Config uint64
	// The exclusions come from perf's modifiers: ":u" counts user space
	// only, ":k" the kernel only, ":h" the hypervisor only.
	ExcludeUser, ExcludeKernel, ExcludeHV bool
	// Unit is "ns" for the clocks and "" for counts.
	Unit string
	// Unsupported is set when the event exists but cannot be counted here
	// and this was found while parsing (a tracepoint whose id is unreadable,
	// tracefs not mounted).
	Unsupported string
}

// software holds perf's software event names and aliases.
var software = map[string]uint64{
	"cpu-clock":        sys.PerfCountSWCPUClock,
	"task-clock":       sys.PerfCountSWTaskClock,
	"page-faults":      sys.PerfCountSWPageFaults,
	"faults":           sys.PerfCountSWPageFaults,
	"context-switches": sys.PerfCountSWContextSwitches,
	"cs":               sys.PerfCountSWContextSwitches,
	"cpu-migrations":   sys.PerfCountSWCPUMigrations,
	"migrations":       sys.PerfCountSWCPUMigrations,
	"minor-faults":     sys.PerfCountSWPageFaultsMin,
	"major-faults":     sys.PerfCountSWPageFaultsMaj,
	"alignment-faults": sys.PerfCountSWAlignmentFaults,
	"emulation-faults": sys.PerfCountSWEmulationFaults,
	"dummy":            sys.PerfCountSWDummy,
	"cgroup-switches":  sys.PerfCountSWCgroupSwitches,
}

// hardware holds perf's generic hardware event names and aliases.
var hardware = map[string]uint64{
	"cpu-cycles":              sys.PerfCountHWCPUCycles,
	"cycles":                  sys.PerfCountHWCPUCycles,
	"instructions":            sys.PerfCountHWInstructions,
	"cache-references":        sys.PerfCountHWCacheReferences,
	"cache-misses":            sys.PerfCountHWCacheMisses,
	"branch-instructions":     sys.PerfCountHWBranchInstructions,
	"branches":                sys.PerfCountHWBranchInstructions,
	"branch-misses":           sys.PerfCountHWBranchMisses,
	"bus-cycles":              sys.PerfCountHWBusCycles,
	"stalled-cycles-frontend": sys.PerfCountHWStalledCyclesFrontend,
	"idle-cycles-frontend":    sys.PerfCountHWStalledCyclesFrontend,
	"stalled-cycles-backend":  sys.PerfCountHWStalledCyclesBackend,
	"idle-cycles-backend":     sys.PerfCountHWStalledCyclesBackend,
	"ref-cycles":              sys.PerfCountHWRefCPUCycles,
}

// The hardware cache event grammar is perf's: CACHE[-OP][-RESULT] (or
// RESULT before OP), case-insensitive, each part with its aliases. An
// omitted op means read (load) and an omitted result means access.
var (
	cacheNames = []struct {
		id      uint64
		aliases []string
	}{
		{sys.PerfCountHWCacheL1D, []string{"l1-dcache", "l1-d", "l1d", "l1-data"}},
		{sys.PerfCountHWCacheL1I, []string{"l1-icache", "l1-i", "l1i", "l1-instruction"}},
		{sys.PerfCountHWCacheLL, []string{"llc", "l2"}},
		{sys.PerfCountHWCacheDTLB, []string{"dtlb", "d-tlb", "data-tlb"}},
		{sys.PerfCountHWCacheITLB, []string{"itlb", "i-tlb", "instruction-tlb"}},
		{sys.PerfCountHWCacheBPU, []string{"branch", "branches", "bpu", "btb", "bpc"}},
		{sys.PerfCountHWCacheNode, []string{"node"}},
	}
	cacheOps = []struct {
		id      uint64
		aliases []string
	}{
		{sys.PerfCountHWCacheOpRead, []string{"load", "loads", "read"}},
		{sys.PerfCountHWCacheOpWrite, []string{"store", "stores", "write"}},
		{sys.PerfCountHWCacheOpPrefetch, []string{"prefetch", "prefetches", "speculative-read", "speculative-load"}},
	}
	cacheResults = []struct {
		id      uint64
		aliases []string
	}{
		{sys.PerfCountHWCacheResultAccess, []string{"refs", "reference", "ops", "access"}},
		{sys.PerfCountHWCacheResultMiss, []string{"misses", "miss"}},
	}
	// cacheOpValid says which ops each cache has, as perf's table does
	// (an instruction cache is not stored to, a branch predictor only read).
	cacheOpValid = map[uint64][]uint64{
		sys.PerfCountHWCacheL1D:  {sys.PerfCountHWCacheOpRead, sys.PerfCountHWCacheOpWrite, sys.PerfCountHWCacheOpPrefetch},
		sys.PerfCountHWCacheL1I:  {sys.PerfCountHWCacheOpRead, sys.PerfCountHWCacheOpPrefetch},
		sys.PerfCountHWCacheLL:   {sys.PerfCountHWCacheOpRead, sys.PerfCountHWCacheOpWrite, sys.PerfCountHWCacheOpPrefetch},
		sys.PerfCountHWCacheDTLB: {sys.PerfCountHWCacheOpRead, sys.PerfCountHWCacheOpWrite, sys.PerfCountHWCacheOpPrefetch},
		sys.PerfCountHWCacheITLB: {sys.PerfCountHWCacheOpRead},
		sys.PerfCountHWCacheBPU:  {sys.PerfCountHWCacheOpRead},
		sys.PerfCountHWCacheNode: {sys.PerfCountHWCacheOpRead, sys.PerfCountHWCacheOpWrite, sys.PerfCountHWCacheOpPrefetch},
	}
)

// ErrUnknownEvent is wrapped by ParseEvents' error for a name that is not a
// perf event.
var ErrUnknownEvent = errors.New("unknown event")

// ParseEvents parses a comma-separated list of perf event names (perf
// stat -e): software events (task-clock, cs, ...), generic hardware events
// (cycles, instructions, ...), hardware cache events (L1-dcache-load-misses,
// LLC-loads, dTLB-loads, ...), raw events (r1a8) and tracepoints
// (raw_syscalls:sys_enter), each optionally followed by the modifiers :u,
// :k or :h. Tracepoint ids are read from tracefs under /, which is mounted
// first when it is missing and kdelta runs as root, as perf mounts it.
func ParseEvents(list string) ([]Event, error) { return ParseEventsAt("/", list) }

// ParseEventsAt is ParseEvents with tracefs looked up under root (a fixture
// tree in tests): root/sys/kernel/tracing, then root/sys/kernel/debug/tracing.
func ParseEventsAt(root, list string) ([]Event, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("empty event list")
	}
	if strings.ContainsAny(list, "{}") {
		return nil, fmt.Errorf("event list %q: perf's {group} syntax is not supported (software and hardware events are grouped by kind)", list)
	}
	var evs []Event
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("event list %q: empty event name", list)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		ev, err := parseEvent(root, name)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func parseEvent(root, name string) (Event, error) {
	ev := Event{Name: name}
	base, mods := name, ""
	parts := strings.Split(name, ":")
	switch {
	case len(parts) == 1:
	case len(parts) == 2 && isModifiers(parts[1]) && isGeneric(parts[0]):
		base, mods = parts[0], parts[1]
	case len(parts) == 2 && isGeneric(parts[0]) && !isRaw(parts[0]):
		// "cycles:x". A raw-looking first part ("rc:...") may still be a
		// tracepoint subsystem, so it is looked up as one.
		return ev, fmt.Errorf("event %q: bad modifier %q (supported: u, k, h)", name, parts[1])
	case len(parts) == 2:
		// subsys:name, a tracepoint.
	case len(parts) == 3:
		base, mods = parts[0]+":"+parts[1], parts[2]
		if !isModifiers(mods) {
			return ev, fmt.Errorf("event %q: bad modifier %q (supported: u, k, h)", name, mods)
		}
	default:
		return ev, fmt.Errorf("event %q: %w", name, ErrUnknownEvent)
	}
	if err := resolve(root, base, &ev); err != nil {
		return ev, err
	}
	applyModifiers(&ev, mods)
	return ev, nil
}

func isModifiers(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c != 'u' && c != 'k' && c != 'h' {
			return false
		}
	}
	return true
}

// isGeneric tells whether s names a non-tracepoint event, so that "cycles:u"
// is cycles with a modifier while "sched:sched_switch" is a tracepoint.
func isGeneric(s string) bool {
	var ev Event
	return resolveGeneric(strings.ToLower(s), &ev)
}

func isRaw(s string) bool {
	var ev Event
	return resolveGeneric(strings.ToLower(s), &ev) && ev.Type == sys.PerfTypeRaw
}

// applyModifiers sets the exclusions as perf does: naming any of u, k, h
// excludes the ones not named.
func applyModifiers(ev *Event, mods string) {
	if mods == "" {
		return
	}
	ev.ExcludeUser = !strings.Contains(mods, "u")
	ev.ExcludeKernel = !strings.Contains(mods, "k")
	ev.ExcludeHV = !strings.Contains(mods, "h")
}

func resolve(root, base string, ev *Event) error {
	if subsys, tp, ok := strings.Cut(base, ":"); ok {
		return resolveTracepoint(root, subsys, tp, ev)
	}
	if !resolveGeneric(strings.ToLower(base), ev) {
		return fmt.Errorf("event %q: %w", ev.Name, ErrUnknownEvent)
	}
	return nil
}

func resolveGeneric(s string, ev *Event) bool {
	if c, ok := software[s]; ok {
		ev.Type, ev.Config = sys.PerfTypeSoftware, c
		if c == sys.PerfCountSWCPUClock || c == sys.PerfCountSWTaskClock {
			ev.Unit = "ns"
		}
		return true
	}
	if c, ok := hardware[s]; ok {
		ev.Type, ev.Config = sys.PerfTypeHardware, c
		return true
	}
	if c, ok := parseCacheEvent(s); ok {
		ev.Type, ev.Config = sys.PerfTypeHWCache, c
		return true
	}
	// Raw PMU events: r followed by the hex config (perf stat -e r1a8).
	if len(s) > 1 && s[0] == 'r' {
		if c, err := strconv.ParseUint(s[1:], 16, 64); err == nil {
			ev.Type, ev.Config = sys.PerfTypeRaw, c
			return true
		}
	}
	return false
}

// matchAlias returns the id and length of the longest alias that s starts
// with, followed by '-' or the end of s.
func matchAlias(s string, table []struct {
	id      uint64
	aliases []string
}) (uint64, int, bool) {
	best, bestLen := uint64(0), 0
	for _, t := range table {
		for _, a := range t.aliases {
			if len(a) > bestLen && strings.HasPrefix(s, a) && (len(s) == len(a) || s[len(a)] == '-') {
				best, bestLen = t.id, len(a)
			}
		}
	}
	return best, bestLen, bestLen > 0
}

func parseCacheEvent(s string) (uint64, bool) {
	cache, n, ok := matchAlias(s, cacheNames)
	if !ok {
		return 0, false
	}
	op, res := uint64(sys.PerfCountHWCacheOpRead), uint64(sys.PerfCountHWCacheResultAccess)
	haveOp, haveRes := false, false
	rest := s[n:]
	for rest != "" {
		rest = rest[1:] // the '-' matchAlias checked
		if id, n, ok := matchAlias(rest, cacheOps); ok && !haveOp {
			op, haveOp, rest = id, true, rest[n:]
			continue
		}
		if id, n, ok := matchAlias(rest, cacheResults); ok && !haveRes {
			res, haveRes, rest = id, true, rest[n:]
			continue
		}
		return 0, false
	}
	valid := false
	for _, o := range cacheOpValid[cache] {
		valid = valid || o == op
	}
	if !valid {
		return 0, false
	}
	return cache | op<<8 | res<<16, true
}

// tracingDirs are where tracefs is found, relative to the root, newest
// convention first.
var tracingDirs = []string{sys.TracefsDir[1:], sys.DebugfsDir[1:] + "/tracing"}

func validTracepointPart(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return s != "." && s != ".."
}

// resolveTracepoint reads the tracepoint's id. A tracepoint that does not
// exist in a readable tracefs is an error; one that cannot be read (tracefs
// not mounted, readable by root only) is kept with the reason in
// Unsupported, so a run still records why it was not counted. On the live
// machine (root "/"), a missing tracefs is mounted first when kdelta runs
// as root, as perf does (sys.MountTracefs).
func resolveTracepoint(root, subsys, name string, ev *Event) error {
	if strings.ContainsAny(subsys+name, "*?[") {
		return fmt.Errorf("event %q: tracepoint wildcards are not supported", ev.Name)
	}
	if !validTracepointPart(subsys) || !validTracepointPart(name) {
		return fmt.Errorf("event %q: %w (a tracepoint is subsystem:name)", ev.Name, ErrUnknownEvent)
	}
	ev.Type = sys.PerfTypeTracepoint
	found, denied, err := readTracepointID(root, subsys, name, ev)
	var mountErr error
	if !found && err == nil && denied == nil && filepath.Clean(root) == "/" {
		var mounted bool
		if mounted, mountErr = sys.MountTracefs(); mounted {
			found, denied, err = readTracepointID(root, subsys, name, ev)
		}
	}
	where := strings.Join(tracingPaths(root), " or ")
	switch {
	case found || err != nil:
		return err
	case denied != nil:
		ev.Unsupported = fmt.Sprintf("permission denied (%v: tracefs is readable by root only)", denied)
	case errors.Is(mountErr, sys.ErrNotRoot):
		ev.Unsupported = fmt.Sprintf("not supported (tracefs is not mounted at %s; kdelta mounts it when run as root)", where)
	case mountErr != nil:
		ev.Unsupported = fmt.Sprintf("not supported (tracefs is not mounted at %s, and mounting it failed: %v)", where, mountErr)
	default:
		ev.Unsupported = fmt.Sprintf("not supported (tracefs is not mounted at %s)", where)
	}
	return nil
}

// readTracepointID looks the tracepoint's id up in each tracing directory
// under root and sets ev.Config. It returns found when it did, the first
// permission error met otherwise, and an error for a tracepoint that a
// readable tracefs does not have or whose id is malformed.
func readTracepointID(root, subsys, name string, ev *Event) (found bool, denied, err error) {
	for _, dir := range tracingDirs {
		events := filepath.Join(root, dir, "events")
		idPath := filepath.Join(events, subsys, name, "id")
		b, err := os.ReadFile(idPath)
		if err == nil {
			id, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
			if perr != nil {
				return false, nil, fmt.Errorf("event %q: %s: bad id %q", ev.Name, idPath, strings.TrimSpace(string(b)))
			}
			ev.Config = id
			return true, nil, nil
		}
		if errors.Is(err, fs.ErrPermission) {
			if denied == nil {
				denied = err
			}
			continue
		}
		if st, serr := os.Stat(events); serr == nil && st.IsDir() {
			// tracefs is here and readable, and the tracepoint is not in it.
			return false, nil, fmt.Errorf("event %q: %w (no %s)", ev.Name, ErrUnknownEvent, filepath.Join(events, subsys, name))
		} else if errors.Is(serr, fs.ErrPermission) && denied == nil {
			denied = serr
		}
	}
	return false, denied, nil
}

func tracingPaths(root string) []string {
	var p []string
	for _, d := range tracingDirs {
		p = append(p, filepath.Join(root, d))
	}
	return p
}
