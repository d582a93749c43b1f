package result

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importSets imports a captured file as kdelta import does, one set per
// variant, and checks each set.
func importSets(t *testing.T, file string) []*Set {
	t.Helper()
	path := filepath.Join(importDir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := ImportSets(path, data, "")
	if err != nil {
		t.Fatalf("ImportSets(%s): %v", file, err)
	}
	for _, s := range sets {
		checkSet(t, path, s)
		if s.Tool != "import table" {
			t.Errorf("%s: tool %q", file, s.Tool)
		}
	}
	return sets
}

// variants returns the variant labels of sets, in order.
func variants(sets []*Set) []string {
	var vs []string
	for _, s := range sets {
		vs = append(vs, s.Labels[VariantParam])
	}
	return vs
}

// only returns the one run of benchmark key in s, and its metric m.
func only(t *testing.T, s *Set, key, m string) (*Run, Metric) {
	t.Helper()
	for _, b := range s.Benchmarks {
		if b.Key() != key {
			continue
		}
		if len(b.Runs) != 1 {
			t.Fatalf("%s %s: %d runs, want the one figure", s.Labels[VariantParam], key, len(b.Runs))
		}
		return b.Runs[0], metric(t, b, m)
	}
	var have []string
	for _, b := range s.Benchmarks {
		have = append(have, b.Key())
	}
	t.Fatalf("%s: no benchmark %s in %v", s.Labels[VariantParam], key, have)
	return nil, Metric{}
}

// TestImportTableSMT reads seed mail 002's SMT table, whose columns are
// the variants: "With Patch (s)" and "Without Patch (s)" are two sets, one
// figure per SMT mode each, and "Improvement (%)" is the mail's claim,
// kept on the with-patch run and checked against the values.
func TestImportTableSMT(t *testing.T) {
	sets := importSets(t, "seed-002-smt.txt")
	if got := strings.Join(variants(sets), " "); got != "with-patch without-patch" {
		t.Fatalf("variants %q, want with-patch without-patch", got)
	}
	with, without := sets[0], sets[1]
	if with.ID == without.ID {
		t.Errorf("both variants have id %s", with.ID)
	}
	for _, tc := range []struct {
		mode               string
		with, without      float64
		claim              string
		improvementPercent float64
	}{
		{"SMT ON.", 51.662, 75.540, "31.61% faster", 31.61},
		{"SMT OFF", 44.246, 59.933, "26.18% faster", 26.18},
	} {
		key := "table:smt-mode=" + tc.mode
		rw, m := only(t, with, key, "time")
		ro, _ := only(t, without, key, "time")
		if m != (Metric{Name: "time", Unit: "s", Better: Lower}) {
			t.Errorf("%s: metric %+v", tc.mode, m)
		}
		if rw.Values["time"] != tc.with || ro.Values["time"] != tc.without || len(rw.Values) != 1 {
			t.Errorf("%s: with %v, without %v", tc.mode, rw.Values, ro.Values)
		}
		// The claim is no measurement: it is kept, relative to the
		// variant the values make it relative to, and they agree.
		if rw.Info["claim"] != tc.claim || rw.Info["claim-vs"] != "without-patch" || ro.Info["claim"] != "" {
			t.Errorf("%s: claims %v and %v", tc.mode, rw.Info, ro.Info)
		}
		if got := 100 * (1 - tc.with/tc.without); math.Abs(got-tc.improvementPercent) > 0.015 {
			t.Errorf("%s: the values give %.3f%%, the mail %v%%", tc.mode, got, tc.improvementPercent)
		}
	}
	if len(with.Warnings) != 0 {
		t.Errorf("warnings %q: the mail's claims agree with its values", with.Warnings)
	}
	// Import alone keeps one set, the variant as a parameter.
	s := importFile(t, "seed-002-smt.txt", "")
	if len(s.Benchmarks) != 4 || s.Benchmarks[0].Key() != "table:smt-mode=SMT ON.,variant=with-patch" {
		t.Errorf("Import: %d benchmarks, first %s", len(s.Benchmarks), s.Benchmarks[0].Key())
	}
}

// TestImportTableSMTQuoted reads the SMT table as a reply quotes it
// twice ("> > "), with CRLF line ends: the same two variants.
func TestImportTableSMTQuoted(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(importDir, "seed-002-smt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := "> > " + strings.ReplaceAll(strings.TrimSuffix(string(data), "\n"), "\n", "\r\n> > ") + "\r\n> >\r\n> Thanks!\r\n"
	sets, err := ImportSets("reply.txt", []byte(quoted), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(variants(sets), " "); got != "with-patch without-patch" {
		t.Fatalf("variants %q", got)
	}
	r, _ := only(t, sets[1], "table:smt-mode=SMT OFF", "time")
	if r.Values["time"] != 59.933 {
		t.Errorf("without-patch, SMT OFF: %v", r.Values)
	}
}

// TestImportTableClaimDisagrees changes the mail's claim: the values do
// not give it, so the set warns, naming the line, and keeps the claim.
func TestImportTableClaimDisagrees(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(importDir, "seed-002-smt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("31.61% faster"), []byte("41.61% faster"), 1)
	sets, err := ImportSets("smt.txt", data, "")
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(sets[0].Warnings, "\n")
	if !strings.Contains(w, `smt.txt:3: table: the mail says "41.61% faster"`) || !strings.Contains(w, "of with-patch vs without-patch; the values give 31.61%") {
		t.Errorf("warnings %q", sets[0].Warnings)
	}
}

// TestImportTableList reads seed mail 002's numbered list of bridge
// timings: four variants of one figure each, the remarks "(14% faster)"
// kept as claims relative to the first, and all of them agree.
func TestImportTableList(t *testing.T) {
	sets := importSets(t, "seed-002-bridge-list.txt")
	want := []struct {
		variant string
		secs    float64
		claim   string
	}{
		{"default", 24.221, ""},
		{"this-patch", 20.754, "14% faster"},
		{"this-patch-plus-wake_from_gp", 15.895, "34% faster"},
		{"wake_from_gp-only", 18.947, "22% faster"},
	}
	if len(sets) != len(want) {
		t.Fatalf("variants %v", variants(sets))
	}
	for i, w := range want {
		s := sets[i]
		if s.Labels[VariantParam] != w.variant || s.Labels["title"] != "real time" {
			t.Errorf("set %d: labels %v", i, s.Labels)
		}
		r, m := only(t, s, "table:", "time")
		if m.Unit != "s" || m.Better != Lower || r.Values["time"] != w.secs {
			t.Errorf("%s: metric %+v values %v", w.variant, m, r.Values)
		}
		if r.Info["claim"] != w.claim || (w.claim != "") != (r.Info["claim-vs"] == "default") {
			t.Errorf("%s: info %v", w.variant, r.Info)
		}
		if len(s.Warnings) != 0 {
			t.Errorf("%s: warnings %q", w.variant, s.Warnings)
		}
	}
}

// TestImportTableTransposed reads seed mail 002's per-call latency table:
// rows of statistics, a column per variant, the unit in the line above.
func TestImportTableTransposed(t *testing.T) {
	sets := importSets(t, "seed-002-per-call.txt")
	if got := strings.Join(variants(sets), " "); got != "1 2 3 4" {
		t.Fatalf("variants %q", got)
	}
	median := []float64{37249.5, 31540.5, 15765, 22480}
	lo := []float64{7881, 7918, 9803, 7857}
	hi := []float64{63651, 55639, 31861, 32040}
	for i, s := range sets {
		r, m := only(t, s, "table:", "median")
		if m != (Metric{Name: "median", Unit: "us", Better: Lower}) {
			t.Errorf("metric %+v", m)
		}
		if v := r.Values; v["median"] != median[i] || v["min"] != lo[i] || v["max"] != hi[i] || len(v) != 3 {
			t.Errorf("variant %d: %v", i+1, v)
		}
	}
}

// TestImportTableBridge reads the list and the transposed table as the
// reply quotes them (">> "), one after the other: the table's numbered
// columns take the list's names, so each variant has both.
func TestImportTableBridge(t *testing.T) {
	sets := importSets(t, "seed-002-bridge.txt")
	if got := strings.Join(variants(sets), " "); got != "default this-patch this-patch-plus-wake_from_gp wake_from_gp-only" {
		t.Fatalf("variants %q", got)
	}
	s := sets[2]
	r, _ := only(t, s, "table:table=real time", "time")
	p, _ := only(t, s, "table:table=Per-synchronize_rcu() latency (in usec)", "median")
	if r.Values["time"] != 15.895 || p.Values["median"] != 15765 || p.Values["max"] != 31861 {
		t.Errorf("%s: time %v, latency %v", s.Labels[VariantParam], r.Values, p.Values)
	}
}

// TestImportTableSpaces reads seed mail 000's tables aligned with spaces
// under rules of dashes, as the reply quotes them. Their rows are the
// variants compared (SELinux modes, kernels): "vs enforcing" and the
// "(-32%)" after a value are the mail's claims, checked against the row
// they are relative to, and a kernel's other cells describe its run.
func TestImportTableSpaces(t *testing.T) {
	sets := importSets(t, "seed-000-selinux.txt")
	want := []struct {
		variant string
		ops     float64
		claim   string
	}{{"enforcing", 69107, ""}, {"permissive", 70248, "+1.6%"}, {"disabled", 93566, "+35.4%"}}
	if len(sets) != len(want) {
		t.Fatalf("variants %v", variants(sets))
	}
	for i, w := range want {
		s := sets[i]
		r, m := only(t, s, "table:", "kill-bogo-ops/sec")
		if s.Labels[VariantParam] != w.variant || m.Better != Higher || r.Values["kill-bogo-ops/sec"] != w.ops || r.Info["claim"] != w.claim {
			t.Errorf("%s: labels %v metric %+v values %v info %v", w.variant, s.Labels, m, r.Values, r.Info)
		}
		if w.claim != "" && r.Info["claim-vs"] != "enforcing" {
			t.Errorf("%s: claim relative to %q", w.variant, r.Info["claim-vs"])
		}
		if len(s.Warnings) != 0 {
			t.Errorf("%s: warnings %q", w.variant, s.Warnings)
		}
	}

	sets = importSets(t, "seed-000-kernels.txt")
	if got := strings.Join(variants(sets), " "); got != "6.15-rc6-eln148 6.16-eln150 6.18-eln154" {
		t.Fatalf("variants %q", got)
	}
	r, _ := only(t, sets[1], "table:", "kill-bogo-ops/sec")
	if r.Values["kill-bogo-ops/sec"] != 70281 || r.Info["claim"] != "-32%" || r.Info["claim-vs"] != "6.15-rc6-eln148" || r.Info["config_preempt_rcu"] != "yes" {
		t.Errorf("6.16: values %v info %v", r.Values, r.Info)
	}
	if len(sets[1].Warnings) != 0 {
		t.Errorf("warnings %q", sets[1].Warnings)
	}
}

// TestImportTableSpacesUnits reads the shape of issue 17's example, a run
// table aligned with spaces and tabs, units in the header and no rule,
// with the first three baseline runs of seed mail 002 in microseconds, in
// CRLF lines as a mail client may save them.
func TestImportTableSpacesUnits(t *testing.T) {
	in := "Run  Mean(us)  Min(us)  Max(us)\r\n1    10088     9989     18848\r\n2\t10064\t9982\t16470\r\n3    10051     9988     15113\r\n"
	s, err := Import("runs.txt", []byte(in), "")
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, "runs.txt", s)
	b := bench(t, s, "table")
	if got := b.Values("mean"); !equalFloats(got, []float64{10088, 10064, 10051}) {
		t.Errorf("mean %v", got)
	}
	if m := metric(t, b, "max"); m.Unit != "us" || m.Better != Lower {
		t.Errorf("max %+v", m)
	}
	if l := b.Runs[1].Latency; l == nil || l.Unit != "us" || l.Min != 9982 || l.Max != 16470 || b.Runs[1].Info["run"] != "2" {
		t.Errorf("run 2: latency %+v info %v", l, b.Runs[1].Info)
	}
}

// TestImportTableShapeErrors checks that a bad table of each new shape is
// a *SyntaxError at the line that is wrong.
func TestImportTableShapeErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"spaces, a row short", "Run  Mean(us)  Max(us)\n1  5  6\n2  7\n3  8  9\n", "bad.txt:3: expected 3 cells"},
		{"transposed, a value short", "1 2 3\nmedian: 1 2 3\nmin: 1 2\n", "bad.txt:3: expected 3 values"},
		{"list, mixed units", "1 - a: 5 s\n2 - b: 6 ms\n", "bad.txt:2: the list mixes units s and ms"},
		{"variants, a bad claim", "A | With (s) | Without (s) | Improvement (%)\n---|---|---|---\nx | 1 | 2 | fast\n", `bad.txt:3: expected a change in column "Improvement (%)"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Import("bad.txt", []byte(tc.in), "")
			var se *SyntaxError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &se) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestImportTablePerfColumns reads seed mail 000's perf report overheads,
// a column per kernel under headers that start with a version: a set per
// kernel, a benchmark per function; "~0%" is approximate and left out with
// a warning, and the direction of an overhead is not known.
func TestImportTablePerfColumns(t *testing.T) {
	sets := importSets(t, "seed-000-perf-report.txt")
	if got := strings.Join(variants(sets), " "); got != "6.15-no-preempt_rcu 6.16-preempt_rcu" {
		t.Fatalf("variants %q", got)
	}
	r, m := only(t, sets[1], "table:function=avc_lookup", "value")
	if r.Values["value"] != 24.79 || m.Unit != "%" {
		t.Errorf("6.16 avc_lookup %v %+v", r.Values, m)
	}
	for _, s := range sets[0].Benchmarks {
		if s.Params["function"] == "__rcu_read_lock" {
			t.Errorf("6.15 has __rcu_read_lock, which the mail gives as ~0%%")
		}
	}
	w := strings.Join(sets[0].Warnings, "\n")
	if !strings.Contains(w, `seed-000-perf-report.txt:4: table: "~0%" in column "6.15 (no PREEMPT_RCU)" is approximate`) || !strings.Contains(w, "no known direction") {
		t.Errorf("warnings %q", sets[0].Warnings)
	}
}

// TestImportTableHeaderless reads seed mail 000's two x86_64 kernels,
// rows of a name and a value under no header, the second with the mail's
// "(-2.8%)": a variant each, the claim checked against the values, and
// the direction of an unnamed value warned of once.
func TestImportTableHeaderless(t *testing.T) {
	sets := importSets(t, "seed-000-x86.txt")
	if got := strings.Join(variants(sets), " "); got != "6.12-x86_64 7.2-x86_64" {
		t.Fatalf("variants %q", got)
	}
	a, _ := only(t, sets[0], "table:", "value")
	b, _ := only(t, sets[1], "table:", "value")
	if a.Values["value"] != 37436 || b.Values["value"] != 36392 || b.Info["claim"] != "-2.8%" || b.Info["claim-vs"] != "6.12-x86_64" {
		t.Errorf("values %v %v, info %v", a.Values, b.Values, b.Info)
	}
	if w := sets[1].Warnings; len(w) != 1 || !strings.Contains(w[0], `seed-000-x86.txt:4: table: column "value" has no known direction`) {
		t.Errorf("warnings %q", w)
	}
	// Without a remark of change, two such lines are prose.
	if _, err := Import("prose.txt", []byte("kernel 6.12  was fine\nkernel 7.2   is 5 times slower\n"), "table"); err == nil {
		t.Errorf("two lines of prose read as a table")
	}
}
