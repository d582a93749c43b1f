package sysinfo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A Difference is one item on which two fingerprints disagree.
type Difference struct {
	// Field names the item: "preempt.mode", "vuln.spectre_v2",
	// "tool.perf", or a config option "CONFIG_PREEMPT_RCU".
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
	// Relevant marks items known to change benchmark results.
	Relevant bool `json:"relevant"`
	// Same marks an item shown although it is equal on both sides: the
	// run-time preemption mode, the reviewer's first question.
	Same bool `json:"same,omitempty"`
	// Config marks a kernel config option.
	Config bool   `json:"config,omitempty"`
	Note   string `json:"note,omitempty"`
}

// absent is how a diff shows an item one fingerprint does not have.
const absent = "-"

// Diff lists what differs between fingerprints a and b: the
// performance-relevant items first, most likely explanation first
// (preemption mode and model, PREEMPT_DYNAMIC, PREEMPT_RCU, HZ, RCU
// settings, SMT, SELinux, mitigations, governor, CPU, virtualization,
// tools), then the run-time preemption mode when it is the same, then the
// other items, then every kernel config option that differs, sorted.
// A nil fingerprint counts as one where nothing was collected.
func Diff(a, b *Fingerprint) []Difference {
	if a == nil {
		a = &Fingerprint{}
	}
	if b == nil {
		b = &Fingerprint{}
	}
	ea, eb := a.entries(), b.entries()
	type pair struct {
		a, b  *entry
		index int
	}
	byName := map[string]*pair{}
	var order []string
	for i := range ea {
		e := &ea[i]
		byName[e.name] = &pair{a: e, index: len(order)}
		order = append(order, e.name)
	}
	for i := range eb {
		e := &eb[i]
		if p, ok := byName[e.name]; ok {
			p.b = e
			continue
		}
		byName[e.name] = &pair{b: e, index: len(order)}
		order = append(order, e.name)
	}

	type ranked struct {
		d         Difference
		rank, idx int
	}
	var rs []ranked
	for _, name := range order {
		p := byName[name]
		va, vb := absent, absent
		rank := 0
		if p.a != nil {
			va, rank = p.a.fact.String(), p.a.rank
		}
		if p.b != nil {
			vb = p.b.fact.String()
			if rank == 0 {
				rank = p.b.rank
			}
		}
		bothUnknown := p.a != nil && p.b != nil && !p.a.fact.Known() && !p.b.fact.Known()
		if bothUnknown {
			// Unknown on both sides for different reasons: worth
			// showing, but no evidence of a relevant difference.
			rank = 0
		}
		d := Difference{Field: name, A: va, B: vb, Relevant: rank > 0}
		if va == vb {
			if name == "preempt.mode" && p.a != nil && p.b != nil && p.a.fact.Known() {
				d.Same = true
				d.Note = fmt.Sprintf("same run-time mode (A: %s; B: %s)", p.a.fact.Source, p.b.fact.Source)
				if a.Preempt.Cmdline != b.Preempt.Cmdline && (len(a.Ignored) > 0 || len(b.Ignored) > 0) {
					d.Note = fmt.Sprintf("both %s: the command lines differ but the kernels do not (%s)", va, strings.Join(append(append([]string(nil), a.Ignored...), b.Ignored...)[:1], ""))
				}
				rs = append(rs, ranked{d: d, rank: rank, idx: p.index})
			}
			continue
		}
		if !bothUnknown {
			d.Note = note(name, va, vb)
		}
		rs = append(rs, ranked{d: d, rank: rank, idx: p.index})
	}
	group := func(r ranked) int {
		switch {
		case r.d.Same && strings.HasPrefix(r.d.Note, "both "):
			// Command lines that differ where the kernel ignores them:
			// the first thing a reader of the comparison must know.
			return -1
		case r.d.Same:
			return 1
		case r.d.Relevant:
			return 0
		}
		return 2
	}
	sort.SliceStable(rs, func(i, j int) bool {
		gi, gj := group(rs[i]), group(rs[j])
		if gi != gj {
			return gi < gj
		}
		if rs[i].rank != rs[j].rank {
			return rs[i].rank < rs[j].rank
		}
		return rs[i].idx < rs[j].idx
	})
	diffs := make([]Difference, 0, len(rs))
	noted := map[string]bool{}
	for _, r := range rs {
		// A note shared by a group (every vulnerability file) is said
		// once, at its first line.
		if noted[r.d.Note] {
			r.d.Note = ""
		} else if r.d.Note != "" {
			noted[r.d.Note] = true
		}
		diffs = append(diffs, r.d)
	}
	return append(diffs, configDiff(a, b)...)
}

// configDiff lists the config options that differ, sorted by name. An
// option one config lacks counts as "n" there, as Kconfig reads it.
func configDiff(a, b *Fingerprint) []Difference {
	ca, errA := a.FullConfig()
	cb, errB := b.FullConfig()
	if ca == nil || cb == nil || errA != nil || errB != nil {
		return nil
	}
	names := map[string]bool{}
	for k := range ca {
		names[k] = true
	}
	for k := range cb {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var diffs []Difference
	for _, k := range keys {
		if ca.Get(k) == cb.Get(k) {
			continue
		}
		va, ok := ca[k]
		if !ok {
			va = absent
		}
		vb, ok := cb[k]
		if !ok {
			vb = absent
		}
		diffs = append(diffs, Difference{Field: k, A: va, B: vb, Relevant: PerfRelevant(k), Config: true})
	}
	return diffs
}

// note explains a difference that is known to move benchmark results.
func note(field, a, b string) string {
	switch {
	case field == "preempt.mode":
		return "run-time preemption modes differ: boot both with the same preempt= to compare the kernels"
	case field == "preempt.model":
		return "build-time preemption model differs"
	case field == "preempt.dynamic" && (a == "yes" || b == "yes"):
		return "PREEMPT_DYNAMIC selects PREEMPT_RCU (default y if PREEMPT || PREEMPT_RT || PREEMPT_DYNAMIC)"
	case field == "preempt_rcu":
		return "preemptible RCU: rcu_read_lock/unlock become real calls with barriers, costly on weakly ordered CPUs"
	case field == "hz":
		return "tick rate differs: timer-driven work and accounting granularity change"
	case field == "selinux":
		return "LSM hooks on syscall paths (avc lookups in kill(), open(), ...)"
	case field == "mitigations" || strings.HasPrefix(field, "vuln."):
		return "mitigations change the cost of kernel entry, exit and context switches"
	case strings.HasPrefix(field, "smt."):
		return "SMT siblings share a core's execution units"
	case field == "cpufreq.governor" || field == "cpufreq.boost":
		return "frequency policy differs: clock rate varies between runs"
	case field == "virtualization":
		return "hypervisor noise: steal time and vCPU placement"
	case field == "cpu.model" || field == "cpu.family":
		return "different processors: the difference is not the kernel's alone"
	case field == "tool.perf":
		return perfNote(a, b)
	}
	return ""
}

// perfNote flags perf versions on both sides of 6.15, whose
// `perf bench sched pipe` loop differs, so pipe results do not compare.
func perfNote(a, b string) string {
	ma, na, okA := majorMinor(a)
	mb, nb, okB := majorMinor(b)
	if !okA || !okB {
		return ""
	}
	before := func(maj, min int) bool { return maj < 6 || maj == 6 && min < 15 }
	if before(ma, na) != before(mb, nb) {
		return fmt.Sprintf("perf %d.%d -> %d.%d: sched pipe loop changed", ma, na, mb, nb)
	}
	return ""
}

// majorMinor parses the first two numbers of a dotted version.
func majorMinor(v string) (int, int, bool) {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return 0, 0, false
	}
	maj, err1 := strconv.Atoi(f[0])
	min, err2 := strconv.Atoi(f[1])
	return maj, min, err1 == nil && err2 == nil
}

// Values returns the named items of fingerprints a and b, each as a
// Difference whose Same says whether they agree, in the order named; an
// item neither fingerprint has is left out. It is for reports that say
// "same" explicitly for the items reviewers ask about, which Diff lists
// only when they differ.
func Values(a, b *Fingerprint, fields ...string) []Difference {
	if a == nil {
		a = &Fingerprint{}
	}
	if b == nil {
		b = &Fingerprint{}
	}
	find := func(es []entry, name string) (Fact, bool) {
		for _, e := range es {
			if e.name == name {
				return e.fact, true
			}
		}
		return Fact{}, false
	}
	ea, eb := a.entries(), b.entries()
	var out []Difference
	for _, f := range fields {
		fa, okA := find(ea, f)
		fb, okB := find(eb, f)
		if !okA && !okB {
			continue
		}
		va, vb := absent, absent
		if okA {
			va = fa.String()
		}
		if okB {
			vb = fb.String()
		}
		out = append(out, Difference{Field: f, A: va, B: vb, Same: va == vb && fa.Known(), Relevant: true})
	}
	return out
}
