package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// goldenSet writes a result set labelled kernel=kernel to dir/name.json
// and returns its path: syscall calls=1000 (ns/call, lower is better, and
// calls/s, higher is better) with one run per value of ns, a command
// workload whose metric has no direction (as a parse= regex without
// better= gives), and, when withPipe, a pipe benchmark, every run in
// session ("" for the set's own). Every figure is fixed, so what kdelta
// prints about the sets is too.
func goldenSet(t *testing.T, dir, name, kernel, session string, ns, value []float64, withPipe bool) string {
	t.Helper()
	start := time.Date(2026, 7, 27, 9, 0, 0, 0, time.UTC)
	sys := &result.Benchmark{Workload: "syscall", Params: map[string]string{"calls": "1000", "syscall": "getppid"},
		Metrics: []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}, {Name: "calls/s", Unit: "calls/s", Better: result.Higher}}}
	for i, v := range ns {
		sys.Runs = append(sys.Runs, &result.Run{Index: i, Start: start.Add(time.Duration(i) * time.Second), Status: result.StatusOK,
			Session: session, Values: map[string]float64{"ns/call": v, "calls/s": 1e9 / v}})
	}
	cmd := &result.Benchmark{Workload: "command", Params: map[string]string{"cmd": "./bench", "regex": `took (\d+)`},
		Metrics: []result.Metric{{Name: "value", Unit: "us"}}}
	for i, v := range value {
		cmd.Runs = append(cmd.Runs, &result.Run{Index: i, Start: start.Add(time.Duration(i) * time.Second), Status: result.StatusOK,
			Session: session, Values: map[string]float64{"value": v}})
	}
	set := &result.Set{Schema: result.Schema, ID: "20260727T090000-" + name, Created: start, Tool: "kdelta test",
		Labels: map[string]string{"kernel": kernel, "host": "p10"}, Benchmarks: []*result.Benchmark{sys, cmd}, Complete: true}
	if withPipe {
		p := &result.Benchmark{Workload: "pipe", Params: map[string]string{"loops": "1000"},
			Metrics: []result.Metric{{Name: "usecs/op", Unit: "us", Better: result.Lower}}}
		for i := range 5 {
			p.Runs = append(p.Runs, &result.Run{Index: i, Status: result.StatusOK, Session: session, Values: map[string]float64{"usecs/op": 5 + float64(i)/100}})
		}
		set.Benchmarks = append(set.Benchmarks, p)
	}
	path := filepath.Join(dir, name+".json")
	if err := result.Save(path, set); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareCLIGolden runs kdelta compare on fixed result sets and checks
// its stdout and stderr against testdata/compare-*.stdout and .stderr, and
// its exit status. The second set is 10% slower on syscall, and 20% higher
// on the metric without a direction, which is a regression: an empty
// direction is lower is better, as everywhere. The first two were
// measured interleaved in one session, as kdelta ab measures, and are
// judged run by run; the third is a session of its own, which without
// the host's session noise nothing can be claimed of.
func TestCompareCLIGolden(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	ns := []float64{100, 101.5, 99.2, 100.4, 98.9, 100.8, 99.6, 101.1}
	value := []float64{50, 51, 49.5, 50.2, 50.6, 49.8, 50.4, 49.9}
	a := goldenSet(t, dir, "a", "6.15", "20260727T090000-ab", ns, value, true)
	b := goldenSet(t, dir, "b", "6.16", "20260727T090000-ab", scaledBy(1.1, ns), scaledBy(1.2, value), false)
	c := goldenSet(t, dir, "c", "6.17", "", scaledBy(1.002, ns), scaledBy(0.999, value), true)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"text", []string{a, b}, 0},
		{"markdown", []string{a, b, "--format", "markdown"}, 0},
		{"csv", []string{a, b, "--format", "csv"}, 0},
		{"three", []string{a, b, c}, 0},
		{"welch", []string{a, b, "--test", "welch", "--threshold", "0.5%"}, 0},
		{"fail-on", []string{a, b, "--fail-on", "regression"}, 1},
		{"no-regression", []string{a, c, "--fail-on", "regression"}, 0},
		{"bad-format", []string{a, b, "--format", "html5"}, 2},
		{"bad-alpha", []string{a, b, "--alpha", "2"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKdelta(append([]string{"compare"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			golden.Check(t, "compare-"+tt.name+".stdout", []byte(strings.ReplaceAll(stdout, dir, "$DIR")))
			golden.Check(t, "compare-"+tt.name+".stderr", []byte(strings.ReplaceAll(stderr, dir, "$DIR")))
		})
	}
	// With the host's session noise in the store, a and c, one session
	// each, are judged with it: the change of +0.2% is no claim.
	st, err := store.Open(context.Background(), filepath.Join(dir, "data", "kdelta", "kdelta.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ns/call", "calls/s"} {
		key := store.NoiseKey{Host: "p10", Workload: "syscall", Params: "calls=1000,syscall=getppid", Metric: m}
		if err := st.SaveNoise(context.Background(), store.Noise{Key: key, Noise: stats.SessionNoise{SD: 0.02, MeanSD: 0.021, Runs: 8, DF: 7}}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	code, stdout, stderr := runKdelta("compare", a, c)
	if code != 0 || !strings.Contains(stdout, "session noise ±2.0%)") || strings.Count(stdout, "assumed for") != 2 { // the other two rows: the prior
		t.Errorf("calibrated: exit %d\n%s%s", code, stdout, stderr)
	}
	golden.Check(t, "compare-calibrated.stdout", []byte(strings.ReplaceAll(stdout, dir, "$DIR")))
	// kdelta show lists the noise of the set's benchmarks on its host.
	if code, stdout, _ := runKdelta("show", a); code != 0 || !strings.Contains(stdout, "session noise on p10") || !strings.Contains(stdout, "ns/call ±2.0% between sessions (8 sessions of 8 runs)") {
		t.Errorf("show: exit %d\n%s", code, stdout)
	}
	// The verdicts the goldens show, checked apart from them so that
	// -update cannot hide a wrong one.
	_, out, _ := runKdelta("compare", a, b, "--format", "csv")
	for _, want := range []string{
		`syscall,"calls=1000,syscall=getppid",ns/call,ns,lower,`,
		`command,"cmd=./bench,regex=took (\d+)",value,us,,`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("csv lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "syscall,") && strings.Contains(line, ",ns/call,") && strings.Contains(line, "kernel=6.16"),
			strings.HasPrefix(line, "syscall,") && strings.Contains(line, ",calls/s,") && strings.Contains(line, "kernel=6.16"),
			strings.HasPrefix(line, "command,") && strings.Contains(line, "kernel=6.16"):
			if !strings.Contains(line, ",regressed,") {
				t.Errorf("want regressed: %s", line)
			}
		}
	}
}

// scaledBy is xs times f.
func scaledBy(f float64, xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}
