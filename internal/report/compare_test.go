package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/testenv"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// calibrated is a host's session noise as kdelta calibrate measures it,
// 1% between sessions from 10 sessions of 10 runs, for every benchmark.
func calibrated(*result.Set, *result.Benchmark, string) stats.SessionNoise {
	return stats.SessionNoise{SD: 0.01, MeanSD: 0.011, Runs: 10, DF: 9}
}

// loadPair compares the two sets of testdata/compare, each one session,
// with the host's session noise that noise gives (nil: unknown).
func loadPair(t *testing.T, noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise) *compare.Result {
	t.Helper()
	var ins []compare.Input
	var sets []*result.Set
	files := []string{"testdata/compare/a.json", "testdata/compare/b.json"}
	for _, f := range files {
		s, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s)
	}
	for i, n := range compare.Names(sets, files) {
		ins = append(ins, compare.Input{Name: n, Set: sets[i]})
	}
	r, err := compare.Compare(ins, compare.Options{Noise: noise})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCompareGolden renders one comparison in every format. The inputs
// hold seed mail 002's two tables as rcu runs, a syscall 5% slower and an
// unchanged pipe, each set one session: without the host's session noise
// nothing is claimed (out.*), with it the widened intervals decide
// (out-calibrated.*).
func TestCompareGolden(t *testing.T) {
	for _, noise := range []bool{false, true} {
		r, name := loadPair(t, nil), "compare/out."
		formats := CompareFormats
		if noise {
			r, name, formats = loadPair(t, calibrated), "compare/out-calibrated.", []string{"text", "markdown"}
		}
		compareGolden(t, r, name, formats)
	}
}

func compareGolden(t *testing.T, r *compare.Result, name string, formats []string) {
	for _, f := range formats {
		var b bytes.Buffer
		if err := WriteCompare(&b, r, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name+f, b.Bytes())
		if f == "text" {
			for i, line := range strings.Split(b.String(), "\n") {
				if len([]rune(line)) > 100 {
					t.Errorf("text line %d is %d columns: %q", i+1, len([]rune(line)), line)
				}
			}
		}
	}
}

// TestCompareVerdicts checks the verdicts the golden output shows, so a
// rewrite of the golden files cannot hide a wrong one: one session each
// without the host's session noise, judged under the prior, which the
// design names (the rcu latency's −38% is a claim under it, the small
// changes are not); with it, the changes the data hold.
func TestCompareVerdicts(t *testing.T) {
	for _, row := range loadPair(t, nil).Rows {
		c := row.Vs[0]
		if c.Design.NoiseUnknown || !strings.Contains(DesignText(c), "session noise ±10.0% assumed for") {
			t.Errorf("%s %s, uncalibrated: %s %s", row.Workload, row.Metric.Name, VerdictText(c), DesignText(c))
		}
		if claim := c.Verdict == stats.Improved || c.Verdict == stats.Regressed; claim != (row.Workload == "rcu") {
			t.Errorf("%s %s, uncalibrated: %s", row.Workload, row.Metric.Name, VerdictText(c))
		}
	}
	r := loadPair(t, calibrated)
	want := map[string]stats.Verdict{
		"syscall ns/call": stats.Regressed, "syscall calls/s": stats.Regressed,
		"rcu mean": stats.Improved, "rcu max": stats.Improved,
	}
	for _, row := range r.Rows {
		k := row.Workload + " " + row.Metric.Name
		if v, ok := want[k]; ok && row.Vs[0].Verdict != v {
			t.Errorf("%s: verdict %s, want %s", k, row.Vs[0].Verdict, v)
		}
		if row.Workload == "pipe" && (row.Vs[0].Verdict == stats.Improved || row.Vs[0].Verdict == stats.Regressed) {
			t.Errorf("pipe %s: unchanged data gives %s", row.Metric.Name, row.Vs[0].Verdict)
		}
	}
	var b bytes.Buffer
	WriteCompare(&b, r, "text")
	for _, s := range []string{"(10 runs × 1 session each, session noise ±1.0%)", "Mean latency (geometric means of the runs' means): 9.72 ms -> 6.04 ms (38% improvement)", "Max latency: 25.72 ms -> 10.25 ms (60% lower; the largest of all runs, one sample a side: no test)", "! preempt.mode: voluntary -> lazy", "! preempt_rcu: n -> y"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text output lacks %q", s)
		}
	}
}

// TestBenchfmtReadByBenchstat feeds the benchfmt output to the real
// benchstat, installed by the test script from the Go module proxy.
func TestBenchfmtReadByBenchstat(t *testing.T) {
	bs, err := exec.LookPath("benchstat")
	if err != nil {
		gobin := filepath.Join(os.Getenv("HOME"), "go", "bin", "benchstat")
		if _, err := os.Stat(gobin); err != nil {
			testenv.Skip(t, "benchstat not installed (go install golang.org/x/perf/cmd/benchstat@latest): skipped")
		}
		bs = gobin
	}
	r := loadPair(t, nil)
	path := filepath.Join(t.TempDir(), "sets.txt")
	var b bytes.Buffer
	if err := WriteCompare(&b, r, "benchfmt"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, b.Bytes(), 0o644)
	out, err := exec.Command(bs, "-col", "set", path).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Syscall") || strings.Contains(string(out), "parse error") {
		t.Errorf("benchstat output does not show the benchmarks:\n%s", out)
	}
}

// TestCompareThreeWayWarnings renders a comparison of three sets whose
// third has a cold first run of 130,600 ns: the warning is C's, under
// "C vs A", its value printed as the tables print numbers.
func TestCompareThreeWayWarnings(t *testing.T) {
	mk := func(kernel string, values ...float64) compare.Input {
		b := &result.Benchmark{Workload: "syscall", Params: map[string]string{},
			Metrics: []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}}}
		for i, v := range values {
			b.Runs = append(b.Runs, &result.Run{Index: i, Status: result.StatusOK, Values: map[string]float64{"ns/call": v}})
		}
		return compare.Input{Name: "kernel=" + kernel, Set: &result.Set{ID: kernel, Labels: map[string]string{"kernel": kernel}, Benchmarks: []*result.Benchmark{b}}}
	}
	steady := []float64{100100, 100200, 99900, 100000, 100300, 100100, 99800, 100000}
	other := []float64{100200, 100100, 100000, 99900, 100300, 100000, 99800, 100100}
	cold := append([]float64{130600}, steady[1:]...)
	r, err := compare.Compare([]compare.Input{mk("a", steady...), mk("b", other...), mk("c", cold...)}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, r, "text"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	vsC := out[strings.Index(out, "C vs A:"):]
	for _, want := range []string{"warning: C: the first run is worse", "run 1 (130,600)"} {
		if !strings.Contains(vsC, want) {
			t.Errorf("under C vs A, no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "B: the first run") || strings.Contains(out, "e+0") {
		t.Errorf("a warning names B for C's runs, or prints a value in exponent notation:\n%s", out)
	}
}

// TestWriteNoises lists noises per host, wrapped at 100 columns.
func TestWriteNoises(t *testing.T) {
	ns := []store.Noise{
		{Key: store.NoiseKey{Host: "p10", Workload: "syscall", Params: "calls=3000000", Conditions: "cpus_allowed=0 policy=SCHED_OTHER", Metric: "ns/call"},
			Noise: stats.SessionNoise{SD: 0.063, MeanSD: 0.064, Runs: 8, DF: 7}, Source: store.NoiseCalibrated},
		{Key: store.NoiseKey{Host: "x86", Workload: "pipe", Metric: "usecs/op"}, Noise: stats.SessionNoise{SD: 0.004, DF: 1}, Source: store.NoiseTwins},
		{Key: store.NoiseKey{Host: "x86", Workload: "pipe", Metric: "msgs/s"}, Noise: stats.SessionNoise{SD: 0.005, DF: 1}},
	}
	var b bytes.Buffer
	WriteNoises(&b, ns)
	want := "\nsession noise on p10 (compare widens one session a side by it):\n" +
		"  syscall:calls=3000000 ns/call ±6.3% between sessions (8 sessions of 8 runs, kdelta calibrate)\n" +
		"    cpus_allowed=0 policy=SCHED_OTHER\n" +
		"session noise on x86 (compare widens one session a side by it):\n" +
		"  pipe usecs/op ±0.4% between sessions (2 sessions, learned from stored twins)\n" +
		"  pipe msgs/s ±0.5% between sessions (2 sessions)\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
