package mail

import (
	"math"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// A shapeRow is one figure a shape reader should find: variant v's
// figure of metric m in benchmark key (workload:params), with its spread
// in percent of the figure (NaN when the mail gives none), and which way
// the metric is better.
type shapeRow struct {
	v, key, m string
	value     float64
	spread    float64
	better    result.Better
}

var none = math.NaN()

// shapeFigure returns variant v's figure of metric m in benchmark key
// from the outputs of a, and its spread in percent (NaN for none).
func shapeFigure(t *testing.T, a *Analysis, r shapeRow) (value, spread float64, better result.Better, ok bool) {
	t.Helper()
	for _, s := range a.Sections {
		for _, o := range s.Outputs {
			for _, st := range o.Sets {
				if st.Labels[result.VariantParam] != r.v {
					continue
				}
				for _, b := range st.Benchmarks {
					if b.Key() != r.key {
						continue
					}
					for _, m := range b.Metrics {
						if m.Name == r.m {
							better = m.Better
						}
					}
					if sum, ok := b.Summaries[r.m]; ok {
						return sum.Mean, 100 * sum.StdErr / math.Abs(sum.Mean), better, true
					}
					if vs := b.Values(r.m); len(vs) == 1 {
						return vs[0], none, better, true
					}
				}
			}
		}
	}
	return 0, 0, "", false
}

func checkShapeRows(t *testing.T, a *Analysis, rows []shapeRow) {
	t.Helper()
	for _, r := range rows {
		v, sp, better, ok := shapeFigure(t, a, r)
		switch {
		case !ok:
			t.Errorf("[%s] %s %s: not found", r.v, r.key, r.m)
		case math.Abs(v-r.value) > 1e-9*math.Max(1, math.Abs(r.value)):
			t.Errorf("[%s] %s %s: %v, want %v", r.v, r.key, r.m, v, r.value)
		case math.IsNaN(r.spread) != math.IsNaN(sp) || !math.IsNaN(sp) && math.Abs(sp-r.spread) > 1e-9:
			t.Errorf("[%s] %s %s: spread %v%%, want %v%%", r.v, r.key, r.m, sp, r.spread)
		case better != r.better:
			t.Errorf("[%s] %s %s: %q is better, want %q", r.v, r.key, r.m, better, r.better)
		}
	}
}

// shapeClaims returns a's claims keyed by their text.
func shapeClaims(a *Analysis) map[string]*Claim {
	out := map[string]*Claim{}
	for _, s := range a.Sections {
		for _, c := range s.Claims {
			out[c.Text] = c
		}
	}
	return out
}

func unread(a *Analysis) []Problem {
	var ps []Problem
	for _, s := range a.Sections {
		ps = append(ps, s.Unread...)
	}
	return ps
}

// A shapeClaim is a change a table states, and what the test recomputes
// from the table's two figures: the improvement (positive for the better)
// and whether the stated change agrees with it to its printed digits.
type shapeClaim struct {
	text     string
	stated   float64
	improved float64
	agrees   bool
}

func checkShapeClaims(t *testing.T, a *Analysis, n int, want []shapeClaim) {
	t.Helper()
	got := shapeClaims(a)
	if len(got) != n {
		t.Errorf("%d claims, want %d", len(got), n)
	}
	for _, w := range want {
		c := got[w.text]
		if c == nil {
			t.Errorf("no claim %q", w.text)
			continue
		}
		if math.Abs(c.Stated-w.stated) > 1e-9 || len(c.Checks) != 1 {
			t.Errorf("claim %q: stated %v, %d checks", w.text, c.Stated, len(c.Checks))
			continue
		}
		k := c.Checks[0]
		if math.Abs(k.Implied-w.improved) > 1e-9 || k.Agrees != w.agrees || !strings.HasPrefix(k.Test, "figures, no test") {
			t.Errorf("claim %q: implied %v agrees %v (%s), want %v agrees %v", w.text, k.Implied, k.Agrees, k.Test, w.improved, w.agrees)
		}
	}
}

// TestShapeMMTests reads an mmtests compare table of three kernels: each
// kernel a variant, its name from the two header lines; positive changes
// are better whatever the unit, so time (Amean) is lower-better and
// throughput (Hmean) higher-better; Stddev rows are kept, never claimed;
// the duration block after the tables is named, not read.
func TestShapeMMTests(t *testing.T) {
	a := analyzeFile(t, "mmtests.txt")
	const v0, v1, v2 = "6.19.0-rc4-vanilla", "6.19.0-rc4-wakeup-trim-v1r2", "6.19.0-rc4-wakeup-trim-v2r1"
	hb1, hb4, tb64 := "hackbench-process-pipes:case=1", "hackbench-process-pipes:case=4", "tbench4:case=64"
	checkShapeRows(t, a, []shapeRow{
		{v0, hb1, "amean", 0.4122, none, result.Lower},
		{v1, hb1, "amean", 0.3816, none, result.Lower},
		{v2, hb1, "amean", 0.4151, none, result.Lower},
		{v2, hb4, "amean", 1.2347, none, result.Lower},
		{v0, hb4, "min", 1.1210, none, result.Lower},
		{v1, hb1, "stddev", 0.0087, none, result.Neither},
		{v2, hb1, "coeffvar", 4.1195, none, result.Neither},
		{v1, hb1, "bamean-50", 0.3760, none, result.Lower},
		{v0, tb64, "hmean", 19870.52, none, result.Higher},
		{v1, tb64, "hmean", 19802.11, none, result.Higher},
		{v2, tb64, "hmean", 20105.30, none, result.Higher},
	})
	// Min, Amean (two cases each), Max and BAmean-50 of hackbench and
	// three Hmean rows of tbench4, each with two kernels against the first.
	checkShapeClaims(t, a, 2*(6+3), []shapeClaim{
		{"hackbench-process-pipes amean 1: " + v1 + " +7.42% vs " + v0 + " (positive is better), marked significant", 7.42, 100 * (1 - 0.3816/0.4122), true},
		{"hackbench-process-pipes amean 4: " + v2 + " -3.99% vs " + v0 + " (positive is better), marked significant", -3.99, 100 * (1 - 1.2347/1.1873), true},
		{"tbench4 hmean 64: " + v1 + " -0.34% vs " + v0 + " (positive is better)", -0.34, 100 * (19802.11/19870.52 - 1), true},
		{"tbench4 hmean 8: " + v2 + " -3.98% vs " + v0 + " (positive is better), marked significant", -3.98, 100 * (3419.66/3561.40 - 1), true},
	})
	ps := unread(a)
	if len(ps) != 1 || ps[0].Line != 38 || !strings.Contains(ps[0].Msg, "mmtests' duration") {
		t.Errorf("unread %+v, want the duration block at line 38", ps)
	}
}

// TestShapePct reads AMD's tables: the newer layout (normalized value,
// [pct imp], (CV)) whose block says which way is better, and the older
// "(N pct)" one, whose direction its changes give.
func TestShapePct(t *testing.T) {
	a := analyzeFile(t, "pct.txt")
	checkShapeRows(t, a, []shapeRow{
		{"tip", "hackbench:case=1-groups", "amean", 1.00, 2.31, result.Lower},
		{"wake-cap", "hackbench:case=1-groups", "amean", 0.97, 3.05, result.Lower},
		{"wake-cap", "hackbench:case=16-groups", "amean", 0.97, 1.93, result.Lower},
		{"tip", "tbench:clients=64", "amean", 1.00, 0.91, result.Higher},
		{"wake-cap", "tbench:clients=64", "amean", 1.02, 0.58, result.Higher},
		{"tip", "table:test=8-groups", "value", 4.95, none, result.Lower},
		{"wake-cap", "table:test=8-groups", "value", 5.38, none, result.Lower},
	})
	checkShapeClaims(t, a, 5+3+5, []shapeClaim{
		// The newer layout's change is of the unrounded means: the
		// normalized figures give it to their two decimals.
		{"hackbench 1-groups: wake-cap +3.25% vs tip (positive is better)", 3.25, 100 * (1 - 0.97), true},
		{"tbench 8: wake-cap -1.33% vs tip (positive is better)", -1.33, 100 * (0.99 - 1), true},
		{"table 8-groups: wake-cap -8.69% vs tip (positive is better)", -8.69, 100 * (1 - 5.38/4.95), true},
		{"table 1-groups: wake-cap +2.59% vs tip (positive is better)", 2.59, 100 * (1 - 4.51/4.63), true},
	})
	if ps := unread(a); len(ps) != 0 {
		t.Errorf("unread %+v", ps)
	}
}

// TestShapeNormalized reads "baseline(std%) compare%( std%)" tables: the
// baseline 1.00 with its std%, the other side 1 + compare%/100 with its
// own; a load may hold a space; the title may say which way is better.
func TestShapeNormalized(t *testing.T) {
	a := analyzeFile(t, "normalized.txt")
	checkShapeRows(t, a, []shapeRow{
		{"baseline", "hackbench:case=process-pipe,load=1-groups", "normalized", 1.00, 1.18, result.Neither},
		{"compare", "hackbench:case=process-pipe,load=1-groups", "normalized", 1 - 0.0050, 1.36, result.Neither},
		{"compare", "hackbench:case=threads-pipe,load=4-groups", "normalized", 1 - 0.0122, 2.03, result.Neither},
		{"baseline", "netperf:case=TCP_RR,load=56 threads", "normalized", 1.00, 0.89, result.Higher},
		{"compare", "netperf:case=TCP_RR,load=224 threads", "normalized", 1 - 0.0211, 10.43, result.Higher},
		{"compare", "netperf:case=UDP_RR,load=112 threads", "normalized", 1 + 0.1240, 2.77, result.Higher},
	})
	if ps := unread(a); len(ps) != 0 {
		t.Errorf("unread %+v", ps)
	}
}

// TestShapeRelative reads a Markdown table with a Relative column: each
// value column a variant, the direction from the unit where it gives
// one, the Relative cell the mail's claim, recomputed; a row that does
// not read is named.
func TestShapeRelative(t *testing.T) {
	a := analyzeFile(t, "relative.txt")
	checkShapeRows(t, a, []shapeRow{
		{"Baseline", "table:benchmark=hackbench", "value", 2.45, none, result.Lower},
		{"Patched", "table:benchmark=hackbench", "value", 2.31, none, result.Lower},
		{"Patched", "table:benchmark=pipe", "value", 126100, none, result.Higher},
		{"Baseline", "table:benchmark=schbench p99", "value", 1040, none, result.Lower},
		{"Patched", "table:benchmark=page faults", "value", 87950, none, result.Neither},
	})
	checkShapeClaims(t, a, 4, []shapeClaim{
		{"hackbench: Relative 0.943 (Patched / Baseline)", 100 * (0.943 - 1), 100 * (2.31/2.45 - 1), true},
		{"pipe: Relative 1.051 (Patched / Baseline)", 100 * (1.051 - 1), 100 * (126100.0/120000 - 1), true},
	})
	ps := unread(a)
	if len(ps) != 1 || ps[0].Line != 19 || !strings.Contains(ps[0].Text, "kernel build") {
		t.Errorf("unread %+v, want the kernel build row at line 19 alone", ps)
	}
}

// TestShapeGlued reads figures with their spread glued on, in a table
// under a header of names and in a "name: value±spread%" line; which way
// is better is not told.
func TestShapeGlued(t *testing.T) {
	a := analyzeFile(t, "glued.txt")
	checkShapeRows(t, a, []shapeRow{
		{"base", "table:benchmark=netperf-udp", "value", 149313, 0.28, result.Neither},
		{"patched", "table:benchmark=netperf-udp", "value", 151022, 0.31, result.Neither},
		{"base", "table:benchmark=netperf-tcp", "value", 42382, 1.2, result.Neither},
		{"patched", "table:benchmark=tbench", "value", 9502.8, 0.35, result.Neither},
		{"base", "hackbench:", "value", 93671, 0.4, result.Neither},
		{"patched", "hackbench:", "value", 95102, 0.6, result.Neither},
	})
	if ps := unread(a); len(ps) != 0 {
		t.Errorf("unread %+v", ps)
	}
}

// TestShapePctHeaders: an old-layout pct table whose column names hold
// spaces is read by its columns apart by two spaces or a tab, and a
// table whose first line is already a row is not read with that row as
// its header.
func TestShapePctHeaders(t *testing.T) {
	text := "Subject: x\n\nThreads:\n\n" +
		"Test:              Base (v6.4-rc1)         Base + fix-reverted\n" +
		"  1-groups:         5.23 (0.00 pct)         4.61 (11.85 pct)\n" +
		"  2-groups:         4.99 (0.00 pct)         4.72 (5.41 pct)\n" +
		"\nStream, no header:\n\n" +
		" Copy:    97699.28 (0.00 pct)     95933.60  (-1.80 pct)\n" +
		"Scale:   107754.15 (0.00 pct)     91869.88 (-14.74 pct)\n"
	a, err := Analyze("x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	checkShapeRows(t, a, []shapeRow{
		{"Base (v6.4-rc1)", "table:test=1-groups", "value", 5.23, none, result.Lower},
		{"Base + fix-reverted", "table:test=2-groups", "value", 4.72, none, result.Lower},
	})
	for _, s := range a.Sections {
		for _, o := range s.Outputs {
			for _, st := range o.Sets {
				if v := st.Labels[result.VariantParam]; strings.ContainsAny(v, "0123456789") && !strings.Contains(v, "v6.4") {
					t.Errorf("a variant named from a row: %q", v)
				}
			}
		}
	}
	if ps := unread(a); len(ps) != 1 || ps[0].Line != 11 || !strings.Contains(ps[0].Msg, "no header naming its columns") {
		t.Errorf("unread %+v, want the header-less stream table named at line 11", ps)
	}
}

// TestShapeMMTestsGluedHeader: mmtests runs a kernel name longer than its
// column into the next; the table's columns cannot be told apart, so it
// is named with its header line, not read with made-up names.
func TestShapeMMTestsGluedHeader(t *testing.T) {
	text := "Subject: x\n\nnumab\n" +
		"                                  6.5.0-rc6              6.5.0-rc6\n" +
		"                        sched-pidclear-v1r5sched-forcescan-v1r5x\n" +
		"Amean     elsp-NUMA02       12.77 (   0.00%)       21.34 * -67.11%*\n" +
		"Max       elsp-NUMA02       13.16 (   0.00%)       22.36 ( -69.91%)\n"
	a, err := Analyze("x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Sections {
		if len(s.Outputs) > 0 {
			t.Errorf("outputs %+v, want none", s.Outputs)
		}
	}
	ps := unread(a)
	if len(ps) != 1 || ps[0].Line != 5 || !strings.Contains(ps[0].Msg, "does not split into its 2 kernels' names") {
		t.Errorf("unread %+v, want the header at line 5 named", ps)
	}
}
