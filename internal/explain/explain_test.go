package explain_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/explain"
	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/testenv"
)

// shared is a file of the third-party fixtures (../shared from the
// project's root), read where it lies.
func shared(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		testenv.Skipf(t, "shared fixture not present: %v", err)
	}
	return p
}

// machine writes a root tree for sysinfo.Collect: a POWER10 LPAR's
// release, command line and cpuinfo, the kernel config and, when given,
// the debugfs preempt file.
func machine(t *testing.T, release string, config []byte, preempt string) *sysinfo.Fingerprint {
	t.Helper()
	root := t.TempDir()
	cpuinfo, err := os.ReadFile(shared(t, "fixtures", "ppc64le-power10", "proc", "cpuinfo.qemu-tcg-pseries-5.8-rc1.email-paste"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"proc/sys/kernel/osrelease": []byte(release + "\n"),
		"proc/sys/kernel/hostname":  []byte("p10-lpar\n"),
		"proc/version":              []byte("Linux version " + release + " (mockbuild@fedora) (gcc (GCC) 14.3.1) #1 SMP\n"),
		"proc/cmdline":              []byte("root=/dev/mapper/root ro\n"),
		"proc/cpuinfo":              cpuinfo,
		"boot/config-" + release:    config,
		"sys/fs/selinux/enforce":    []byte("1"),
	}
	if preempt != "" {
		files["sys/kernel/debug/sched/preempt"] = []byte(preempt)
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return sysinfo.Collect(sysinfo.FS{Root: root}, sysinfo.Options{BootLog: " ", Tools: map[string]string{"stress-ng": "0.21.03"}})
}

// runs is a benchmark of n runs near v (1% noise, from rng), in session.
func runs(rng *rand.Rand, workload string, m result.Metric, session string, vs ...float64) *result.Benchmark {
	b := &result.Benchmark{Workload: workload, Params: map[string]string{}, Metrics: []result.Metric{m}}
	for i, v := range vs {
		b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Session: session,
			Values: map[string]float64{m.Name: v * (1 + 0.01*rng.NormFloat64())}, Lacks: result.FigAll})
	}
	return b
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// symbols is a cut perf report table (overhead percent by kernel symbol).
func symbols(table map[string]float64) result.Profile {
	p := result.Profile{Source: "seed 000's table", Event: "cycles", CutOff: 0.5}
	for sym, o := range table {
		p.Symbols = append(p.Symbols, result.ProfileSymbol{Overhead: o, Symbol: sym, Kernel: true, DSO: "[kernel.kallsyms]"})
	}
	profile.SortSymbols(p.Symbols)
	return p
}

// TestExplainSeed000 tells seed mail 000's story: the stress-ng kill
// stressor on a POWER10 LPAR across Fedora ELN builds, 6.15-rc6 (eln148,
// no PREEMPT_DYNAMIC on ppc64le, so the static voluntary model) against
// 6.16 (eln150, PREEMPT_DYNAMIC in effect, PREEMPT_RCU, lazy at run time),
// 103,207 -> 70,281 bogo-ops/s, with the mail's perf report shares. The
// fingerprints are taken from the Fedora ppc64le config of the fixtures,
// the builds told apart as the fixture's README says they were built.
func TestExplainSeed000(t *testing.T) {
	cfg, err := os.ReadFile(shared(t, "fixtures", "ppc64le-fedora", "config", "kernel-ppc64le-fedora.config.6.19.14-108.f42"))
	if err != nil {
		t.Fatal(err)
	}
	// ≤ 6.15 on ppc64le: CONFIG_PREEMPT_DYNAMIC had no effect (the arch
	// lacked it), so the built kernel has neither it nor PREEMPT_RCU.
	static := regexp.MustCompile(`(?m)^CONFIG_PREEMPT_DYNAMIC=y\n`).ReplaceAll(cfg, nil)
	dynamic := append(append([]byte{}, cfg...), "CONFIG_PREEMPT_RCU=y\n"...)
	lazy, err := os.ReadFile(shared(t, "fixtures", "preempt", "captures", "powerpc-power10-lpar-dev-kernel-2024-11.after-echo-lazy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(0, 0))
	kill := result.Metric{Name: "bogo-ops/s", Unit: "ops/s", Better: result.Higher}
	mk := func(kernel, release string, config []byte, preempt string, v float64, table map[string]float64) *result.Set {
		b := runs(rng, "kill", kill, "boot-"+kernel, repeat(v, 10)...)
		b.Profiles = []result.Profile{symbols(table)}
		return &result.Set{Schema: result.Schema, ID: kernel, Labels: map[string]string{"kernel": kernel, "host": "p10-lpar"},
			Env: machine(t, release, config, preempt), Benchmarks: []*result.Benchmark{b},
			Command:    []string{"kdelta", "run", "kill", "-r", "10"},
			Conditions: map[string]string{result.CondCPUs: "all", result.CondFIFO: "off", result.CondWarmup: "1", result.CondVersion: "0.1.0"}}
	}
	a := mk("6.15-rc6-eln148", "6.15.0-0.rc6.250512gabcdef.148.eln148.ppc64le", static, "", 103207,
		map[string]float64{"avc_lookup": 15.23, "selinux_task_kill": 6.23, "audit_signal_info_syscall": 0.94})
	b := mk("6.16-eln150", "6.16.0-0.rc1.150.eln150.ppc64le", dynamic, string(lazy), 70281,
		map[string]float64{"avc_lookup": 24.79, "__rcu_read_lock": 4.52, "__rcu_read_unlock": 4.17, "selinux_task_kill": 7.35, "audit_signal_info_syscall": 3.59})
	// The host's session noise, as kdelta calibrate would have measured
	// it for boots of this machine.
	noise := func(*result.Set, *result.Benchmark, string) stats.SessionNoise {
		return stats.SessionNoise{SD: 0.02, MeanSD: 0.02, Runs: 10, DF: 7}
	}
	rep, err := explain.Explain(compare.Input{Name: "kernel=6.15-rc6-eln148", Set: a}, compare.Input{Name: "kernel=6.16-eln150", Set: b}, explain.Options{Noise: noise})
	if err != nil {
		t.Fatal(err)
	}
	text := check(t, "seed000", rep)
	for _, want := range []string{
		"kill: bogo-ops/s 103,",             // the verdict's sentence
		"regression",                        // conclusive with the host's noise
		"! preempt.mode: voluntary -> lazy", // the run-time modes differ
		"! preempt_rcu: n -> y",             // and in PREEMPT_RCU
		"= hz: same (100)",                  // the same said explicitly
		"avc_lookup",                        // the profile diff's top symbol
		"__rcu_read_lock",                   // new in B
		"No counters or rusage",             // the mail measured none
		"session noise ±2.0%",               // the design
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if i, j := strings.Index(text, "avc_lookup"), strings.Index(text, "selinux_task_kill"); i < 0 || j < i {
		t.Error("avc_lookup (+9.56 pp) is not ranked above selinux_task_kill (+1.12 pp)")
	}
}

// TestExplainSeed004 tells seed mail 004's story: null_syscall 2546.71
// -> 3479.54 ns (one value each: a figure, not a verdict), context_switch
// 55,5xx -> 55,1xx switches/s (0.8% fewer), and the two perf report
// tables of the mail, in which __task_pid_nr_ns's share falls from 23.64%
// to 12.73% while __rcu_read_unlock's rises.
func TestExplainSeed004(t *testing.T) {
	load := func(name string) []result.Profile {
		gs, err := profile.Load(context.Background(), filepath.Join("..", "profile", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var ps []result.Profile
		for _, g := range gs {
			for _, p := range g.Profiles {
				ps = append(ps, *p)
			}
		}
		return ps
	}
	ns := result.Metric{Name: "ns/call", Unit: "ns", Better: result.Lower}
	cs := result.Metric{Name: "switches/s", Better: result.Higher}
	mk := func(name string, syscall float64, switches []float64, ps []result.Profile) *result.Set {
		null := &result.Benchmark{Workload: "null_syscall", Params: map[string]string{}, Metrics: []result.Metric{ns},
			Runs: []*result.Run{{Status: result.StatusOK, Values: map[string]float64{"ns/call": syscall}, Lacks: result.FigAll}}, Profiles: ps}
		ctx := &result.Benchmark{Workload: "context_switch", Params: map[string]string{}, Metrics: []result.Metric{cs}}
		for i, v := range switches {
			ctx.Runs = append(ctx.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"switches/s": v}, Lacks: result.FigAll})
		}
		return &result.Set{Schema: result.Schema, ID: name, Labels: map[string]string{"series": name}, Benchmarks: []*result.Benchmark{null, ctx}}
	}
	a := mk("without", 2546.71, []float64{55542, 55562, 55564, 55562, 55568}, load("seed004-before.txt"))
	b := mk("with", 3479.54, []float64{55138, 55142, 55152, 55144, 55142}, load("seed004-after.txt"))
	rep, err := explain.Explain(compare.Input{Name: "series=without", Set: a}, compare.Input{Name: "series=with", Set: b}, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := check(t, "seed004", rep)
	for _, want := range []string{
		"ns/call 2,547 ns -> 3,480 ns (36.6% slower; one value each",
		"switches/s",
		"0.7% lower, inconclusive",
		"__task_pid_nr_ns",
		"__rcu_read_unlock",
		"No fingerprint to compare",
		"record them with:", // no profile of context_switch
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, row := range rep.Profiles {
		if row.Diff == nil {
			continue
		}
		for _, r := range row.Diff.Rows {
			if r.Symbol == "__task_pid_nr_ns" && !(r.A.Share > r.B.Share) {
				t.Errorf("__task_pid_nr_ns share %v -> %v, the mail's fall", r.A.Share, r.B.Share)
			}
		}
	}
}

// check renders rep in every format, compares the text with its golden
// file, checks that it fits a mail's 72 columns and that the HTML escapes,
// and returns the text.
func check(t *testing.T, name string, rep *explain.Report) string {
	t.Helper()
	var text bytes.Buffer
	if err := report.WriteExplain(&text, rep, "text"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, name+".txt", text.Bytes())
	for i, line := range strings.Split(text.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > report.ExplainWidth {
			t.Errorf("%s line %d is %d columns: %q", name, i+1, n, line)
		}
	}
	for _, f := range []string{"markdown", "html"} {
		var b bytes.Buffer
		if err := report.WriteExplain(&b, rep, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "What the verdict rests on") {
			t.Errorf("%s: no design section", f)
		}
	}
	// Checks read the text with its line breaks as spaces.
	return strings.Join(strings.Fields(text.String()), " ")
}
