package result

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A set's run conditions are how kdelta measured, besides the kernel and
// the machine: where the children ran (--cpus), under which policy
// (--fifo), behind which shield (--shield), with which counters and
// probes, timing which kernel functions, after how many warm-up runs, and
// with which kdelta. Each moves the figures on its own: the same kernel
// pinned to one CPU or not differs by 14% in a ping-pong. They are part of
// a set's identity, so that a difference in them is never blamed on a
// kernel. A workload's own parameters (cpus=, soak=) are in its
// benchmark's key already.

// The condition keys kdelta records, in the order they are shown.
const (
	CondCPUs        = "cpus"
	CondFIFO        = "fifo"
	CondShield      = "shield"
	CondCounters    = "counters"
	CondProbes      = "probes"
	CondFuncLatency = "funclatency"
	CondWarmup      = "warmup"
	CondVersion     = "version"
)

var conditionOrder = []string{CondCPUs, CondFIFO, CondShield, CondCounters, CondProbes, CondFuncLatency, CondWarmup, CondVersion}

var conditionNames = map[string]string{
	CondCPUs:        "placement (--cpus)",
	CondFIFO:        "SCHED_FIFO priority (--fifo)",
	CondShield:      "CPU shield (--shield)",
	CondCounters:    "counters (-e)",
	CondProbes:      "probes on warm-up runs (--probe-events)",
	CondFuncLatency: "kernel functions timed (--funclatency)",
	CondWarmup:      "warm-up runs (--warmup)",
	CondVersion:     "kdelta version",
}

// A ConditionDiff is one run condition that differs between two sets.
type ConditionDiff struct {
	Key, A, B string
}

// Name is the condition as kdelta names it: "placement (--cpus)".
func (d ConditionDiff) Name() string {
	if name := conditionNames[d.Key]; name != "" {
		return name
	}
	return d.Key
}

// String says the difference: "placement (--cpus): all -> 0".
func (d ConditionDiff) String() string {
	return fmt.Sprintf("%s: %s -> %s", d.Name(), d.A, d.B)
}

// ConditionStrings says each difference of ds (String), in order; nil
// for none.
func ConditionStrings(ds []ConditionDiff) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// DiffConditions lists the run conditions that a and b both record and
// that differ, in the order they are shown. A condition one side does not
// record (an import, a set older than conditions) is unknown, not
// different.
func DiffConditions(a, b map[string]string) []ConditionDiff {
	var out []ConditionDiff
	for _, k := range conditionKeys(a, b) {
		va, okA := a[k]
		vb, okB := b[k]
		if okA && okB && va != vb {
			out = append(out, ConditionDiff{Key: k, A: va, B: vb})
		}
	}
	return out
}

// conditionKeys are the keys of a and b, known ones in their order, then
// the others sorted.
func conditionKeys(ms ...map[string]string) []string {
	var other []string
	seen := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			if !seen[k] && !slices.Contains(conditionOrder, k) {
				other = append(other, k)
			}
			seen[k] = true
		}
	}
	sort.Strings(other)
	var out []string
	for _, k := range conditionOrder {
		if seen[k] {
			out = append(out, k)
		}
	}
	return append(out, other...)
}

// FormatConditions writes conditions as one line, k=v pairs separated by
// "; " in the order they are shown ("" for none), as the store keeps them.
func FormatConditions(c map[string]string) string {
	var parts []string
	for _, k := range conditionKeys(c) {
		parts = append(parts, k+"="+c[k])
	}
	return strings.Join(parts, "; ")
}

// ParseConditions reads FormatConditions's line back.
func ParseConditions(s string) map[string]string {
	if s == "" {
		return nil
	}
	out := map[string]string{}
	for _, p := range strings.Split(s, "; ") {
		k, v, _ := strings.Cut(p, "=")
		out[k] = v
	}
	return out
}
