package profile

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// A Side is the profiles of one kernel or configuration: one per profiled
// run, or one per imported table.
type Side struct {
	Name     string
	Profiles []*result.Profile
}

// A Summary describes a side as a whole.
type Summary struct {
	Name string `json:"name"`
	// N is the number of profiles with a symbol table.
	N      int      `json:"profiles"`
	Events []string `json:"events,omitempty"`
	// Samples is the mean total samples per profile; SamplesEstimated says
	// some were estimated from a cut table.
	Samples          float64 `json:"samples"`
	SamplesEstimated bool    `json:"samples_estimated,omitempty"`
	// Ops is the mean operations per profiled run; 0 when unknown.
	Ops float64 `json:"ops,omitempty"`
	// CutOff is the largest cut-off among the side's tables (percent).
	CutOff      float64  `json:"cutoff,omitempty"`
	Unavailable []string `json:"unavailable,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
}

// PerOp is the side's mean samples per operation, NaN when unknown.
func (s Summary) PerOp() float64 {
	if s.Ops <= 0 || s.Samples <= 0 {
		return math.NaN()
	}
	return s.Samples / s.Ops
}

// A Stat is one symbol's figures on one side, over its profiles.
type Stat struct {
	// Listed is how many of the side's N profiles list the symbol.
	Listed int `json:"listed"`
	N      int `json:"n"`
	// Share is the mean overhead in percent (a profile not listing the
	// symbol counts 0); Min and Max are its range over the profiles.
	Share float64 `json:"share"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	// Below, for a symbol no profile lists, is the side's cut-off: the
	// symbol was under it. 0 then means the tables are whole: the symbol
	// was never sampled.
	Below float64 `json:"below,omitempty"`
	// Samples is the mean samples, NaN when the tables have no counts;
	// SamplesBelow bounds them for a symbol under the cut-off.
	Samples      float64 `json:"samples"`
	SamplesBelow float64 `json:"samples_below,omitempty"`
	// PerOp is the mean samples per operation, NaN when unknown.
	PerOp float64 `json:"per_op"`
}

// An Entry is a symbol and its figures on one side.
type Entry struct {
	Symbol   string `json:"symbol"`
	DSO      string `json:"dso,omitempty"`
	Commands string `json:"commands,omitempty"`
	Kernel   bool   `json:"kernel"`
	Stat
}

// entryKey joins a symbol across profiles and kernels: by name and
// kernel/user, with the object only for names that are addresses (or
// tables sorted without symbols). Commands are merged.
type entryKey struct {
	sym, dso string
	kernel   bool
}

func keyOf(s result.ProfileSymbol) entryKey {
	if s.Symbol == "" || strings.HasPrefix(s.Symbol, "0x") || s.Symbol == "[unknown]" {
		return entryKey{s.Symbol, s.DSO, s.Kernel}
	}
	return entryKey{sym: s.Symbol, kernel: s.Kernel}
}

// usable tells whether a profile has a table to compare.
func usable(p *result.Profile) bool { return p.Unavailable == "" && len(p.Symbols) > 0 }

// Aggregate summarises a side and returns its symbols, heaviest first.
func Aggregate(side Side) (Summary, []Entry) {
	sum := Summary{Name: side.Name}
	var ps []*result.Profile
	events := map[string]bool{}
	for _, p := range side.Profiles {
		if !usable(p) {
			reason := p.Unavailable
			if reason == "" {
				reason = "no symbols"
			}
			sum.Unavailable = append(sum.Unavailable, reason)
			continue
		}
		ps = append(ps, p)
		if p.Event != "" && !events[p.Event] {
			events[p.Event] = true
			sum.Events = append(sum.Events, p.Event)
		}
	}
	sum.N = len(ps)
	sum.Warnings = sideWarnings(ps)
	if sum.N == 0 {
		return sum, nil
	}
	opsKnown := true
	for _, p := range ps {
		sum.Samples += float64(p.Samples) / float64(sum.N)
		sum.SamplesEstimated = sum.SamplesEstimated || p.SamplesEstimated
		sum.Ops += p.Ops / float64(sum.N)
		opsKnown = opsKnown && p.Ops > 0
		sum.CutOff = math.Max(sum.CutOff, p.CutOff)
	}
	if !opsKnown {
		sum.Ops = 0
	}

	// An acc holds a symbol's figures in the profiles that list it, in
	// profile order, not a slot for every profile: a side of many small
	// tables lists many symbols once each, and a slot per profile and
	// symbol would cost their product.
	type listing struct {
		i       int // the profile's index in ps
		share   float64
		samples float64
	}
	type acc struct {
		e        Entry
		in       []listing
		counted  bool
		commands map[string]float64
	}
	accs := map[entryKey]*acc{}
	var order []entryKey
	for i, p := range ps {
		// Within one profile, a symbol's rows (one per command) add up.
		for _, s := range p.Symbols {
			k := keyOf(s)
			a := accs[k]
			if a == nil {
				a = &acc{e: Entry{Symbol: s.Symbol, DSO: s.DSO, Kernel: s.Kernel}, counted: true, commands: map[string]float64{}}
				accs[k] = a
				order = append(order, k)
			}
			if n := len(a.in); n == 0 || a.in[n-1].i != i {
				a.in = append(a.in, listing{i: i})
				a.e.Listed++
			}
			l := &a.in[len(a.in)-1]
			l.share += s.Overhead
			l.samples += float64(s.Samples)
			if s.Samples == 0 && s.Overhead > 0 {
				a.counted = false
			}
			if s.Command != "" {
				a.commands[s.Command] += s.Overhead
			}
		}
	}
	entries := make([]Entry, 0, len(order))
	for _, k := range order {
		a := accs[k]
		e := a.e
		e.N = sum.N
		// A profile that does not list the symbol counts 0: in the
		// mean, and in the range.
		e.Min, e.Max = math.Inf(1), math.Inf(-1)
		if e.Listed < sum.N {
			e.Min, e.Max = 0, 0
		}
		var samples, perOp float64
		for _, l := range a.in {
			e.Share += l.share / float64(sum.N)
			e.Min = math.Min(e.Min, l.share)
			e.Max = math.Max(e.Max, l.share)
			samples += l.samples
			perOp += l.samples / ps[l.i].Ops
		}
		e.Samples, e.PerOp = math.NaN(), math.NaN()
		if a.counted {
			e.Samples = samples / float64(sum.N)
			if opsKnown {
				e.PerOp = perOp / float64(sum.N)
			}
		}
		e.Commands = topCommands(a.commands)
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Share != entries[j].Share {
			return entries[i].Share > entries[j].Share
		}
		return entries[i].Symbol < entries[j].Symbol
	})
	return sum, entries
}

func topCommands(m map[string]float64) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("+%d", len(names)-3))
	}
	return strings.Join(names, ",")
}

// Marks on a row of a diff.
const (
	// MarkNew: not sampled at all on side A (whole tables), listed on B.
	MarkNew = "new"
	// MarkGone: listed on A, never sampled on B (whole tables).
	MarkGone = "gone"
	// MarkBelowA and MarkBelowB: not listed on that side, whose table
	// is cut: the symbol was under its smallest listed share.
	MarkBelowA = "below cut-off in A"
	MarkBelowB = "below cut-off in B"
	// MarkFew: sampled on one side only, but so seldom that a symbol of
	// the same share on both sides leaves the other side empty more often
	// than FewAlpha (see tooFew): the samples cannot tell new or gone.
	MarkFew = "too few samples"
)

// A Row is one symbol's change from side A to side B.
type Row struct {
	Symbol   string `json:"symbol"`
	DSO      string `json:"dso,omitempty"`
	Commands string `json:"commands,omitempty"`
	Kernel   bool   `json:"kernel"`
	A        Stat   `json:"a"`
	B        Stat   `json:"b"`
	// Delta is the change of share in percentage points. When one side is
	// under its cut-off, the change lies between DeltaLo and DeltaHi and
	// Delta is the end nearer zero; otherwise all three are equal.
	Delta   float64 `json:"delta_pp"`
	DeltaLo float64 `json:"delta_lo_pp"`
	DeltaHi float64 `json:"delta_hi_pp"`
	// SamplesChange and PerOpChange are relative changes (0.25 is +25%),
	// NaN when unknown.
	SamplesChange float64 `json:"samples_change"`
	PerOpChange   float64 `json:"per_op_change"`
	Mark          string  `json:"mark,omitempty"`
	// WithinSpread says both sides have several profiles and the ranges
	// of the symbol's share overlap: the change may be noise.
	WithinSpread bool `json:"within_spread,omitempty"`
}

// Ranged tells whether the change is known only as a range.
func (r Row) Ranged() bool { return r.DeltaLo != r.DeltaHi }

// A Diff is the change of a profile from side A to side B.
type Diff struct {
	// Name is what was profiled (the benchmark), when known.
	Name string  `json:"name,omitempty"`
	A    Summary `json:"a"`
	B    Summary `json:"b"`
	// By is the order of Rows: share, samples or per-op.
	By       string   `json:"by"`
	Rows     []Row    `json:"rows"`
	Warnings []string `json:"warnings,omitempty"`
}

// Orders of a diff's rows.
var Orders = []string{"share", "samples", "per-op"}

// Compare diffs side b against side a: every symbol either lists, ordered
// by the size of the change in by ("share": percentage points, the
// certain part of a change that a cut-off leaves uncertain; "samples" and
// "per-op": the absolute change of samples or samples per operation).
func Compare(a, b Side, by string) (*Diff, error) {
	switch by {
	case "":
		by = "share"
	case "share", "samples", "per-op":
	default:
		return nil, fmt.Errorf("unknown order %q (one of %s)", by, strings.Join(Orders, ", "))
	}
	sa, ea := Aggregate(a)
	sb, eb := Aggregate(b)
	d := &Diff{A: sa, B: sb, By: by}
	if sa.N == 0 || sb.N == 0 {
		for _, s := range []Summary{sa, sb} {
			if s.N == 0 {
				// The reasons are the side's Unavailable, said once.
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s has no profile to compare", s.Name))
			}
		}
		return d, nil
	}
	if len(sa.Events) == 1 && len(sb.Events) == 1 && sa.Events[0] != sb.Events[0] {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the sides sampled different events (%s, %s): shares compare, samples do not", sa.Events[0], sb.Events[0]))
	}
	if by == "per-op" && (sa.Ops == 0 || sb.Ops == 0) {
		d.Warnings = append(d.Warnings, "operations unknown on a side: ordered by share instead of samples per operation")
		d.By, by = "share", "share"
	}
	ib := map[entryKey]int{}
	for i, e := range eb {
		ib[entryKey{e.Symbol, keyDSO(e), e.Kernel}] = i
	}
	seen := make([]bool, len(eb))
	for _, e := range ea {
		r := Row{Symbol: e.Symbol, DSO: e.DSO, Commands: e.Commands, Kernel: e.Kernel, A: e.Stat}
		if j, ok := ib[entryKey{e.Symbol, keyDSO(e), e.Kernel}]; ok {
			seen[j] = true
			r.B = eb[j].Stat
		} else {
			r.B = missing(sb)
		}
		d.Rows = append(d.Rows, r)
	}
	for j, e := range eb {
		if !seen[j] {
			d.Rows = append(d.Rows, Row{Symbol: e.Symbol, DSO: e.DSO, Commands: e.Commands, Kernel: e.Kernel, A: missing(sa), B: e.Stat})
		}
	}
	for i := range d.Rows {
		settle(&d.Rows[i])
		tooFew(&d.Rows[i], sa, sb)
	}
	sort.SliceStable(d.Rows, func(i, j int) bool {
		x, y := size(d.Rows[i], by), size(d.Rows[j], by)
		if x != y {
			return x > y
		}
		// Ties (and unknown sizes) fall back to the largest possible
		// change of share, then the name.
		xs, ys := math.Max(math.Abs(d.Rows[i].DeltaLo), math.Abs(d.Rows[i].DeltaHi)), math.Max(math.Abs(d.Rows[j].DeltaLo), math.Abs(d.Rows[j].DeltaHi))
		if xs != ys {
			return xs > ys
		}
		return d.Rows[i].Symbol < d.Rows[j].Symbol
	})
	return d, nil
}

func keyDSO(e Entry) string {
	return keyOf(result.ProfileSymbol{Symbol: e.Symbol, DSO: e.DSO, Kernel: e.Kernel}).dso
}

// missing is the stat of a symbol a side does not list.
func missing(s Summary) Stat {
	st := Stat{N: s.N, Below: s.CutOff}
	if s.CutOff > 0 || s.Samples == 0 {
		st.Samples = math.NaN()
	}
	if math.IsNaN(st.Samples) || s.Ops == 0 {
		st.PerOp = math.NaN()
	}
	if s.CutOff > 0 {
		st.SamplesBelow = s.CutOff / 100 * s.Samples
	}
	return st
}

// settle fills a row's change and mark.
func settle(r *Row) {
	a, b := r.A, r.B
	r.Delta = b.Share - a.Share
	r.DeltaLo, r.DeltaHi = r.Delta, r.Delta
	switch {
	case a.Listed == 0 && a.Below > 0:
		// A was somewhere in [0, cut).
		r.Mark = MarkBelowA
		r.DeltaLo, r.DeltaHi = b.Share-a.Below, b.Share
	case a.Listed == 0:
		r.Mark = MarkNew
	case b.Listed == 0 && b.Below > 0:
		r.Mark = MarkBelowB
		r.DeltaLo, r.DeltaHi = -a.Share, b.Below-a.Share
	case b.Listed == 0:
		r.Mark = MarkGone
	}
	if r.Ranged() {
		switch {
		case r.DeltaLo > 0:
			r.Delta = r.DeltaLo
		case r.DeltaHi < 0:
			r.Delta = r.DeltaHi
		default:
			r.Delta = 0
		}
	}
	r.SamplesChange = change(a.Samples, b.Samples)
	r.PerOpChange = change(a.PerOp, b.PerOp)
	if a.N > 1 && b.N > 1 && a.Listed > 0 && b.Listed > 0 {
		r.WithinSpread = a.Min <= b.Max && b.Min <= a.Max
	}
}

func change(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || a <= 0 {
		if a == 0 && b > 0 {
			return math.Inf(1)
		}
		return math.NaN()
	}
	return b/a - 1
}

// size is what rows are ordered by.
func size(r Row, by string) float64 {
	var d float64
	switch by {
	case "samples":
		d = r.B.Samples - r.A.Samples
	case "per-op":
		d = r.B.PerOp - r.A.PerOp
	default:
		d = r.Delta
	}
	if math.IsNaN(d) {
		return -1
	}
	return math.Abs(d)
}

// Unprofiled names each side of diffs that held no profile (a result set
// run without --profile, or whose perf failed), with the first reason it
// has none in brackets, each once: a diff of such a side compared
// nothing.
func Unprofiled(diffs []*Diff) []string {
	var names []string
	for _, d := range diffs {
		for _, s := range []Summary{d.A, d.B} {
			name := s.Name
			if len(s.Unavailable) > 0 {
				name += " (" + s.Unavailable[0] + ")"
			}
			if s.N == 0 && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}
