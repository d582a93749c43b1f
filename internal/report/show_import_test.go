package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/result"
)

// TestShowImportedTable shows seed mail 002's baseline table as imported:
// the table gave the runs' mean, min and max and nothing else, so show
// prints those and no context switches, times or counters, which the
// import never had; its JSON leaves them out instead of writing 0.
func TestShowImportedTable(t *testing.T) {
	path := filepath.Join("..", "result", "testdata", "import", "seed-002-baseline.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := result.Import(path, data, "")
	if err != nil {
		t.Fatal(err)
	}
	// The id and time of an import are those of the moment it ran.
	s.ID, s.Created = "20261201T101518-seed002", time.Date(2026, 12, 1, 10, 15, 18, 0, time.UTC)
	enc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"wall_s", "user_s", "sys_s", "voluntary_ctxsw", "involuntary_ctxsw", "maxrss_kib", "exit_code", "p50", "p99", `"count"`} {
		if bytes.Contains(enc, []byte(key)) {
			t.Errorf("the imported table's JSON has %s, which the table never gave", key)
		}
	}
	s, err = result.Decode("seed-002.json", enc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opt  ShowOptions
	}{{"show-import-seed-002.golden", ShowOptions{}}, {"show-import-seed-002-runs.golden", ShowOptions{Runs: true}}} {
		var b bytes.Buffer
		Show(&b, s, tt.opt)
		golden.Check(t, tt.name, b.Bytes())
		out := b.String()
		for _, absent := range []string{"context switches", "time per run", "wall", "rusage", "counters", "system per run", "vol cs", "0.000"} {
			if strings.Contains(out, absent) {
				t.Errorf("%s: output has %q, which the table never gave:\n%s", tt.name, absent, out)
			}
		}
		if !strings.Contains(out, "mean            10         9.747 ± 0.741 ms") {
			t.Errorf("%s: output lacks the mean of the run means:\n%s", tt.name, out)
		}
	}
}

// TestShowSaysWhoseContextSwitches checks that the context switches of
// the child's rusage and those of perf's counter are told apart, and that
// the counters say whether they were system-wide (-a).
func TestShowSaysWhoseContextSwitches(t *testing.T) {
	run := &result.Run{Status: result.StatusOK, WallSec: 0.5, UserSec: 0.1, SysSec: 0.3, VolCtxSw: 67, InvolCtxSw: 47, Ops: 10000,
		Values:   map[string]float64{"ns/call": 82},
		Counters: []result.Counter{{Name: "context-switches", Value: 7450}}}
	for _, tt := range []struct {
		command []string
		want    string
	}{
		{[]string{"kdelta", "run", "syscall", "-a", "-e", "context-switches"}, "  perf counters, system-wide (-a: every task on the run's CPUs), mean per run and per op:"},
		{[]string{"kdelta", "run", "syscall", "--all-cpus", "-e", "context-switches"}, "  perf counters, system-wide (-a"},
		{[]string{"kdelta", "run", "syscall", "-e", "context-switches"}, "  perf counters of the measured child and the tasks it created, mean per run and per op:"},
		// After stat's "--", -a is the measured command's own.
		{[]string{"kdelta", "stat", "-e", "cs", "--", "ls", "-a"}, "  perf counters of the measured child"},
		{[]string{"kdelta", "vm", "--kernel", "K", "--", "run", "syscall", "-a"}, "  perf counters, system-wide (-a"},
		{nil, "  perf counters, mean per run and per op:"},
	} {
		s := &result.Set{ID: "x", Complete: true, Command: tt.command, Benchmarks: []*result.Benchmark{{
			Workload: "syscall", Metrics: []result.Metric{{Name: "ns/call", Unit: "ns", Better: result.Lower}},
			Runs: []*result.Run{run},
		}}}
		var b bytes.Buffer
		Show(&b, s, ShowOptions{})
		out := b.String()
		rusage := "  the measured child (rusage):\n    context switches per run: 114.0 (67.00 voluntary, 47.00 involuntary)\n"
		if !strings.Contains(out, rusage) || !strings.Contains(out, tt.want) {
			t.Errorf("%q: output lacks %q or %q:\n%s", tt.command, rusage, tt.want, out)
		}
	}
}

// TestPerfStatLeavesOutMissingTimes checks that perf stat's user and sys
// lines are left out when no run has them, rather than printed as 0.
func TestPerfStatLeavesOutMissingTimes(t *testing.T) {
	mk := func(lacks result.Figures) *result.Set {
		var runs []*result.Run
		for i := range 3 {
			runs = append(runs, &result.Run{Index: i, Status: result.StatusOK, UserSec: 0.25, SysSec: 0.5, Lacks: lacks,
				Values: map[string]float64{"elapsed": 1 + float64(i)/100}})
		}
		return &result.Set{Benchmarks: []*result.Benchmark{{Workload: "command", Params: map[string]string{"command": "true"},
			Metrics: []result.Metric{{Name: "elapsed", Unit: "s", Better: result.Lower}}, Runs: runs}}}
	}
	var b bytes.Buffer
	PerfStat(&b, mk(0))
	if !strings.Contains(b.String(), "0.250000000 seconds user") || !strings.Contains(b.String(), "0.500000000 seconds sys") {
		t.Errorf("measured times not printed:\n%s", b.String())
	}
	b.Reset()
	PerfStat(&b, mk(result.FigUser|result.FigSys))
	if strings.Contains(b.String(), "seconds user") || strings.Contains(b.String(), "seconds sys") {
		t.Errorf("times no run has are printed:\n%s", b.String())
	}
}
