package workload

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// captured returns a tool's captured stdout followed by its stderr, as the
// command workload would read them when the tool writes one after the
// other.
func captured(t testing.TB, name string) string {
	t.Helper()
	var b strings.Builder
	for _, ext := range []string{".stdout", ".stderr"} {
		data, err := os.ReadFile(filepath.Join("testdata", name+ext))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

var parserSeeds = map[string][]string{
	"perf-bench": {"perf-bench-syscall-basic", "perf-bench-sched-pipe", "perf-bench-sched-messaging"},
	"stress-ng":  {"stress-ng-kill"},
	"hackbench":  {"hackbench"},
}

func TestParseCaptured(t *testing.T) {
	for _, tc := range []struct {
		file, parser string
		want         map[string]float64
	}{
		{"perf-bench-syscall-basic", "perf-bench", map[string]float64{"time": 0.014, "usecs/op": 0.145280, "ops/sec": 6883259}},
		{"perf-bench-sched-pipe", "perf-bench", map[string]float64{"time": 0.125, "usecs/op": 12.516500, "ops/sec": 79894}},
		{"perf-bench-sched-messaging", "perf-bench", map[string]float64{"time": 0.022}},
		{"stress-ng-kill", "stress-ng", map[string]float64{"bogo-ops/s": 41890.26, "kill-calls/s": 742749.07}},
		{"hackbench", "hackbench", map[string]float64{"time": 0.008}},
	} {
		got, err := outputParsers[tc.parser].parse(captured(t, tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.file, got, tc.want)
		}
	}
}

// The parsers must refuse output that is not one result of their tool.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, parser, text, want string
	}{
		{"perf two benchmarks", "perf-bench", "# Running 'sched/messaging' benchmark:\nTotal time: 0.1 [sec]\n# Running 'sched/messaging' benchmark:\nTotal time: 0.2 [sec]\n", "2 runs of perf-bench-sched-messaging"},
		{"perf figures before the header", "perf-bench", "Total time: 0.1 [sec]\n", "output:1: expected \"# Running 'SUITE/BENCH' benchmark:\" before the figures"},
		{"perf bad number", "perf-bench", "# Running 'sched/messaging' benchmark:\n     Total time: 1.2.3 [sec]\n", "expected 'Total time: S [sec]' in the 'sched/messaging' run of line 1"},
		{"perf NaN", "perf-bench", "# Running 'sched/messaging' benchmark:\nTotal time: NaN [sec]\n", "expected 'Total time: S [sec]'"},
		{"perf negative", "perf-bench", "# Running 'sched/messaging' benchmark:\nTotal time: -1 [sec]\n", "time -1 is negative"},
		{"hackbench nothing", "hackbench", "Running in process mode\n", "expected hackbench output"},
		{"hackbench twice", "hackbench", "Time: 1\nTime: 2\n", "2 runs of hackbench in one run's output"},
		{"stress-ng without --metrics", "stress-ng",
			"stress-ng: info:  [1] dispatching hogs: 1 kill\nstress-ng: info:  [1] successful run completed in 0.05s\n",
			"expected stress-ng --metrics output"},
		{"stress-ng two stressors", "stress-ng", strings.Join([]string{
			"stress-ng: metrc: [9] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s",
			"stress-ng: metrc: [9]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)",
			"stress-ng: metrc: [9] kill               2000      0.05      0.01      0.02     41890.26       70633.94",
			"stress-ng: metrc: [9] cpu                 300      0.05      0.05      0.00      6000.00        6000.00",
		}, "\n"), "2 benchmarks in one run's output (stress-ng-cpu; stress-ng-kill)"},
	} {
		_, err := outputParsers[tc.parser].parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// Other stress-ng versions write the same table with other log levels and
// columns; these lines are written after their formats (0.13's "info:"
// level and no RSS column, 0.17's "harmonic mean").
func TestParseStressNGVersions(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]float64
	}{
		{"info level, brief", strings.Join([]string{
			"stress-ng: info:  [4242] dispatching hogs: 1 kill",
			"stress-ng: info:  [4242] stressor       bogo ops real time  usr time  sys time   bogo ops/s   bogo ops/s",
			"stress-ng: info:  [4242]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)",
			"stress-ng: info:  [4242] kill              510000     10.00      1.20      8.10     51000.00     54838.71",
			"stress-ng: info:  [4242] successful run completed in 10.00s",
		}, "\n"), map[string]float64{"bogo-ops/s": 51000}},
		{"harmonic mean", strings.Join([]string{
			"stress-ng: metrc: [77] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s CPU used per       RSS Max",
			"stress-ng: metrc: [77]                           (secs)    (secs)    (secs)   (real time) (usr+sys time) instance (%)          (KB)",
			"stress-ng: metrc: [77] kill             1032070     10.00      0.61      9.35    103207.00      103621.49        99.60          2048",
			"stress-ng: metrc: [77] miscellaneous metrics:",
			"stress-ng: metrc: [77] kill              812345.50 kill calls per sec (harmonic mean of 1 instances)",
		}, "\r\n"), map[string]float64{"bogo-ops/s": 103207, "kill-calls/s": 812345.5}},
		{"no prefix (log file)", strings.Join([]string{
			"stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s",
			"                          (secs)    (secs)    (secs)   (real time) (usr+sys time)",
			"af-alg                100      1.00      0.10      0.80       100.00         111.11",
		}, "\n"), map[string]float64{"bogo-ops/s": 100}},
	} {
		got, err := ParseStressNG(tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// fuzzParser checks what holds for any input: no panic, and on success only
// the parser's declared metrics, each a finite non-negative number.
func fuzzParser(f *testing.F, name string) {
	p := outputParsers[name]
	for _, file := range parserSeeds[name] {
		f.Add(captured(f, file))
	}
	f.Add("")
	f.Add("Total time: 1e999 [sec]\nTime: 0x10\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := p.parse(text)
		if err != nil {
			return
		}
		if len(m) == 0 {
			t.Fatal("success with no figures")
		}
		for k, v := range m {
			declared := false
			for _, d := range p.metrics {
				declared = declared || d == k
			}
			if !declared {
				t.Errorf("metric %q is not among %v", k, p.metrics)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("metric %s = %v", k, v)
			}
		}
	})
}

func FuzzParsePerfBench(f *testing.F) { fuzzParser(f, "perf-bench") }
func FuzzParseStressNG(f *testing.F)  { fuzzParser(f, "stress-ng") }
func FuzzParseHackbench(f *testing.F) { fuzzParser(f, "hackbench") }

// TestParseAgreesWithImport checks the reason the parsers read through the
// importers: parse= of a tool's captured output and kdelta import of the
// same text give the same figures, renamed only.
func TestParseAgreesWithImport(t *testing.T) {
	for _, tc := range []struct {
		file, parser string
		names        map[string]string // importer's name -> parse='s
	}{
		{"perf-bench-sched-pipe", "perf-bench", map[string]string{"time": "time", "usecs/op": "usecs/op", "ops/s": "ops/sec"}},
		{"perf-bench-sched-messaging", "perf-bench", map[string]string{"time": "time"}},
		{"stress-ng-kill", "stress-ng", map[string]string{"bogo-ops/s": "bogo-ops/s", "kill-calls/s": "kill-calls/s"}},
		{"hackbench", "hackbench", map[string]string{"time": "time"}},
	} {
		text := captured(t, tc.file)
		got, err := outputParsers[tc.parser].parse(text)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		s, err := result.Import(tc.file, []byte(text), tc.parser)
		if err != nil {
			t.Fatalf("%s: import: %v", tc.file, err)
		}
		imported := s.Benchmarks[0].Runs[0].Values
		for from, to := range tc.names {
			if got[to] != imported[from] {
				t.Errorf("%s: parse= %s = %v, import %s = %v", tc.file, to, got[to], from, imported[from])
			}
		}
	}
	// perf bench -f simple prints the total time alone: the importer reads
	// it (with a warning that the benchmark is not named), and so does
	// parse=.
	got, err := ParsePerfBench("0.013\n")
	if err != nil || got["time"] != 0.013 {
		t.Errorf("perf bench -f simple: %v, %v; want time 0.013", got, err)
	}
}
