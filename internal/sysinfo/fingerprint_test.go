package sysinfo

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/golden"
)

// trees are the fixture machines under testdata/, with the tool versions
// their users would have had (tools are not part of a file tree).
var trees = []struct {
	name  string
	tools map[string]string
}{
	{"vm-6.18", map[string]string{"perf": "6.1.192", "stress-ng": "0.15.06", "hackbench": "2.40"}},
	{"fedora-x86_64", map[string]string{"perf": "6.19.6", "stress-ng": "0.19.02", "hackbench": NotInstalled}},
	// Seed mail 000: stress-ng 0.21.03 throughout; perf follows the kernel
	// package on Fedora ELN.
	{"power10-6.15", map[string]string{"perf": "6.14.9", "stress-ng": "0.21.03"}},
	{"power10-6.16", map[string]string{"perf": "6.16.0", "stress-ng": "0.21.03"}},
	{"power10-7.1", map[string]string{"perf": "7.1.0", "stress-ng": "0.21.03"}},
}

// collectTree takes the fingerprint of testdata/name.
func collectTree(t *testing.T, name string) *Fingerprint {
	t.Helper()
	for _, tr := range trees {
		if tr.name == name {
			return Collect(FS{Root: filepath.Join("testdata", name)}, Options{Tools: tr.tools})
		}
	}
	t.Fatalf("no tree %q", name)
	return nil
}

func TestEnvGolden(t *testing.T) {
	for _, tr := range trees {
		t.Run(tr.name, func(t *testing.T) {
			fp := collectTree(t, tr.name)
			checkFacts(t, fp)
			var b bytes.Buffer
			if err := WriteText(&b, fp); err != nil {
				t.Fatal(err)
			}
			checkText(t, tr.name, b.String())
			golden.Check(t, tr.name+".env.golden", b.Bytes())
		})
	}
}

// TestFixtureFacts checks the facts each tree was written to show, so a
// golden file rewritten with -update cannot silently lose them.
func TestFixtureFacts(t *testing.T) {
	type want struct{ field, value, source string }
	cases := []struct {
		tree  string
		wants []want
	}{
		{"vm-6.18", []want{
			{"preempt.mode", "none", "boot log (/dmesg.txt)"},
			{"preempt.model", "none", "kernel config (CONFIG_PREEMPT_NONE=y)"},
			{"preempt.dynamic", "yes", ""},
			{"preempt_rcu", "y", ""},
			{"hz", "250", ""},
			{"arch", "x86_64", ""},
			{"virtualization", "vm", ""},
			{"smt.control", "notsupported", ""},
			{"selinux", "disabled", ""},
			{"lockdown", "integrity", "kernel config (LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y)"},
			{"thp", "madvise", ""},
		}},
		{"fedora-x86_64", []want{
			{"preempt.mode", "full", "cmdline (preempt=full)"},
			{"preempt.model", "lazy", ""},
			{"preempt.dynamic", "yes", ""},
			{"hz", "1000", ""},
			{"selinux", "enforcing", ""},
			{"tuned", "virtual-guest", ""},
			{"virtualization", "vm (QEMU Standard PC (Q35 + ICH9, 2009))", ""},
			{"cpu.model", "AMD EPYC 9355P 32-Core Processor", ""},
			{"cpu.siblings", "0-1 2-3", ""},
			{"nohz_full", "none", ""},
			{"lockdown", "none", "/sys/kernel/security/lockdown"},
		}},
		{"power10-6.15", []want{
			{"preempt.mode", "voluntary", "static build (CONFIG_PREEMPT_VOLUNTARY=y, no PREEMPT_DYNAMIC)"},
			{"preempt.dynamic", "no", ""},
			{"preempt_rcu", "n", ""},
			{"hz", "100", ""},
			{"arch", "ppc64le", ""},
			{"cpu.family", "POWER10", ""},
			{"cpu.stepping", "2.0 (pvr 0080 0200)", ""},
			{"virtualization", "lpar (PowerVM pSeries)", ""},
		}},
		{"power10-6.16", []want{
			{"preempt.mode", "voluntary", "debugfs (/sys/kernel/debug/sched/preempt)"},
			{"preempt.model", "voluntary", ""},
			{"preempt.dynamic", "yes", ""},
			{"preempt.debugfs", "none (voluntary) full lazy", ""},
			{"preempt.boot_log", "voluntary", ""},
			{"preempt_rcu", "y", ""},
		}},
		{"power10-7.1", []want{
			{"preempt.mode", "lazy", "debugfs (/sys/kernel/debug/sched/preempt)"},
			{"preempt.model", "lazy", ""},
			{"preempt.debugfs", "full (lazy)", ""},
			{"preempt_rcu", "y", ""},
		}},
	}
	for _, c := range cases {
		t.Run(c.tree, func(t *testing.T) {
			fp := collectTree(t, c.tree)
			got := map[string]Fact{}
			for _, e := range fp.entries() {
				got[e.name] = e.fact
			}
			for _, w := range c.wants {
				f, ok := got[w.field]
				if !ok {
					t.Errorf("%s: no such field", w.field)
					continue
				}
				if f.Value != w.value {
					t.Errorf("%s = %q, want %q (%s)", w.field, f.Value, w.value, f.Unknown)
				}
				if w.source != "" && f.Source != w.source {
					t.Errorf("%s source = %q, want %q", w.field, f.Source, w.source)
				}
			}
		})
	}
}

func TestEnvDiffGolden(t *testing.T) {
	cases := []struct {
		a, b string
		// lead is the Field of the first differences, in order.
		lead []string
	}{
		// The reviewer's question of seed mail 000: PREEMPT_DYNAMIC and
		// PREEMPT_RCU change, the run-time mode stays voluntary.
		{"power10-6.15", "power10-6.16", []string{"preempt.dynamic", "preempt_rcu"}},
		// From 7.0 powerpc has only full and lazy: the mode changes.
		{"power10-6.15", "power10-7.1", []string{"preempt.mode", "preempt.model", "preempt.dynamic", "preempt_rcu"}},
		{"power10-6.16", "power10-7.1", []string{"preempt.mode", "preempt.model"}},
		{"fedora-x86_64", "power10-7.1", []string{"preempt.mode", "hz"}},
	}
	for _, c := range cases {
		t.Run(c.a+"_"+c.b, func(t *testing.T) {
			diffs := Diff(collectTree(t, c.a), collectTree(t, c.b))
			if len(diffs) < len(c.lead) {
				t.Fatalf("%d differences, want at least %d", len(diffs), len(c.lead))
			}
			for i, f := range c.lead {
				if diffs[i].Field != f || !diffs[i].Relevant || diffs[i].Same {
					t.Errorf("difference %d is %#v, want a relevant change of %s", i, diffs[i], f)
				}
			}
			var b bytes.Buffer
			if err := WriteDiffText(&b, diffs); err != nil {
				t.Fatal(err)
			}
			checkText(t, "diff", b.String())
			golden.Check(t, c.a+"_"+c.b+".diff.golden", b.Bytes())
		})
	}
}

// TestDiffFullConfig diffs the real, complete config of this VM against an
// excerpt: every option of either side is compared, in name order.
func TestDiffFullConfig(t *testing.T) {
	diffs := Diff(collectTree(t, "vm-6.18"), collectTree(t, "fedora-x86_64"))
	var config []string
	for _, d := range diffs {
		if d.Config {
			config = append(config, d.Field)
		} else if len(config) > 0 {
			t.Fatalf("%s comes after config options", d.Field)
		}
	}
	if len(config) < 1000 {
		t.Errorf("%d config differences, want the >1000 of a full config against an excerpt", len(config))
	}
	if !sort.StringsAreSorted(config) {
		t.Error("config differences are not sorted")
	}
	var b bytes.Buffer
	if err := WriteDiffText(&b, diffs); err != nil {
		t.Fatal(err)
	}
	checkText(t, "diff", b.String())
}

func TestDiffPower10Story(t *testing.T) {
	d615, d616, d71 := collectTree(t, "power10-6.15"), collectTree(t, "power10-6.16"), collectTree(t, "power10-7.1")

	t.Run("6.15-6.16 mode unchanged", func(t *testing.T) {
		diffs := Diff(d615, d616)
		var mode *Difference
		for i := range diffs {
			if diffs[i].Field == "preempt.mode" {
				mode = &diffs[i]
			}
		}
		if mode == nil {
			t.Fatal("no preempt.mode line")
		}
		if !mode.Same || mode.A != "voluntary" || mode.B != "voluntary" {
			t.Errorf("preempt.mode = %#v, want the same line voluntary -> voluntary", *mode)
		}
		if !strings.Contains(mode.Note, "static build") || !strings.Contains(mode.Note, "debugfs") {
			t.Errorf("note %q does not say where each side's mode came from", mode.Note)
		}
		wantConfig := map[string][2]string{
			"CONFIG_PREEMPT_DYNAMIC": {"-", "y"},
			"CONFIG_PREEMPT_RCU":     {"-", "y"},
		}
		for _, d := range diffs {
			if w, ok := wantConfig[d.Field]; ok {
				if !d.Config || !d.Relevant || d.A != w[0] || d.B != w[1] {
					t.Errorf("%s: %#v, want relevant config %s -> %s", d.Field, d, w[0], w[1])
				}
				delete(wantConfig, d.Field)
			}
		}
		for f := range wantConfig {
			t.Errorf("config option %s not in the diff", f)
		}
	})

	t.Run("6.15-7.1 leads with mode", func(t *testing.T) {
		diffs := Diff(d615, d71)
		d := diffs[0]
		if d.Field != "preempt.mode" || d.A != "voluntary" || d.B != "lazy" || d.Same {
			t.Errorf("first difference %#v, want preempt.mode voluntary -> lazy", d)
		}
	})

	t.Run("tool note", func(t *testing.T) {
		for _, d := range Diff(d615, d616) {
			if d.Field == "tool.perf" {
				if d.Note != "perf 6.14 -> 6.16: sched pipe loop changed" {
					t.Errorf("perf note %q", d.Note)
				}
				return
			}
		}
		t.Error("no tool.perf difference")
	})

	t.Run("self", func(t *testing.T) {
		diffs := Diff(d71, d71)
		if len(diffs) != 1 || !diffs[0].Same || diffs[0].Field != "preempt.mode" {
			t.Errorf("Diff of a fingerprint with itself = %#v, want only the same-mode line", diffs)
		}
	})
}

func TestPerfNote(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"6.1.192", "6.15.3", "perf 6.1 -> 6.15: sched pipe loop changed"},
		{"6.15.0", "6.1.192", "perf 6.15 -> 6.1: sched pipe loop changed"},
		{"6.14.9", "7.1.0", "perf 6.14 -> 7.1: sched pipe loop changed"},
		{"6.15.0", "6.16.2", ""},
		{"6.1.192", "6.14.0", ""},
		{NotInstalled, "6.16.0", ""},
		{"5.10", "unknown: timed out", ""},
	}
	for _, c := range cases {
		if got := perfNote(c.a, c.b); got != c.want {
			t.Errorf("perfNote(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// TestJSONRoundTrip checks that a fingerprint survives being stored in a
// result set: same struct back, nothing but the same-mode line in a diff.
func TestJSONRoundTrip(t *testing.T) {
	for _, tr := range trees {
		t.Run(tr.name, func(t *testing.T) {
			fp := collectTree(t, tr.name)
			data, err := json.Marshal(fp)
			if err != nil {
				t.Fatal(err)
			}
			var back Fingerprint
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fp, &back) {
				t.Errorf("fingerprint changed through JSON")
			}
			if d := Diff(fp, &back); len(d) != 1 || !d[0].Same {
				t.Errorf("Diff after JSON = %#v", d)
			}
			cfg, err := back.FullConfig()
			if err != nil || len(cfg) != fp.Config.Options {
				t.Errorf("stored config: %d options, err %v; want %d", len(cfg), err, fp.Config.Options)
			}
		})
	}
}

// TestJSONGolden pins the stored layout of one small fingerprint: a change
// here is a schema change and must bump Schema.
func TestJSONGolden(t *testing.T) {
	fp := collectTree(t, "power10-6.15")
	// The compressed bytes depend on the compress/flate version, not on
	// the layout: TestJSONRoundTrip checks that they read back.
	fp.Config.Gzip = []byte("gzip")
	data, err := json.MarshalIndent(fp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "power10-6.15.json.golden", append(data, '\n'))
}
