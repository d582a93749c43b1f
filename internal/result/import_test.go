package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// importDir holds the captured outputs; its README says how each was made.
var importDir = filepath.Join("testdata", "import")

// importFile imports a captured file with the given format ("" detects).
func importFile(t *testing.T, file, format string) *Set {
	t.Helper()
	path := filepath.Join(importDir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Import(path, data, format)
	if err != nil {
		t.Fatalf("Import(%s, %q): %v", file, format, err)
	}
	checkSet(t, path, s)
	return s
}

// checkSet checks what every imported set must hold: its identity, every
// value under a declared metric, and a JSON form that Decode reads back.
func checkSet(t testing.TB, path string, s *Set) {
	t.Helper()
	if err := validSet(path, s); err != nil {
		t.Fatal(err)
	}
}

func validSet(path string, s *Set) error {
	if s.Schema != Schema || s.ID == "" || s.Created.IsZero() || !strings.HasPrefix(s.Tool, "import ") || !s.Complete {
		return fmt.Errorf("%s: bad identity: schema %q id %q created %v tool %q complete %v", path, s.Schema, s.ID, s.Created, s.Tool, s.Complete)
	}
	if got, want := s.Labels["source"], filepath.Base(path); got != want {
		return fmt.Errorf("%s: source label %q, want %q", path, got, want)
	}
	if len(s.Benchmarks) == 0 {
		return fmt.Errorf("%s: no benchmarks", path)
	}
	keys := map[string]bool{}
	for _, b := range s.Benchmarks {
		if b.Workload == "" || b.Params == nil {
			return fmt.Errorf("%s: benchmark without workload or params: %+v", path, b)
		}
		if keys[b.Key()] {
			return fmt.Errorf("%s: two benchmarks with key %s", path, b.Key())
		}
		keys[b.Key()] = true
		declared := map[string]bool{}
		for _, m := range b.Metrics {
			if m.Name == "" || (m.Better != Lower && m.Better != Higher && m.Better != Neither) {
				return fmt.Errorf("%s: %s: bad metric %+v", path, b.Key(), m)
			}
			if declared[m.Name] {
				return fmt.Errorf("%s: %s: metric %s declared twice", path, b.Key(), m.Name)
			}
			declared[m.Name] = true
		}
		if len(b.Runs) == 0 && len(b.Summaries) == 0 {
			return fmt.Errorf("%s: %s: neither runs nor summaries", path, b.Key())
		}
		for i, r := range b.Runs {
			if r.Index != i || r.Status != StatusOK || r.Start.IsZero() {
				return fmt.Errorf("%s: %s: run %d: index %d status %q start %v", path, b.Key(), i, r.Index, r.Status, r.Start)
			}
			for k, v := range r.Values {
				if !declared[k] {
					return fmt.Errorf("%s: %s: run %d: value %s without a metric", path, b.Key(), i, k)
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s: %s: run %d: %s = %v", path, b.Key(), i, k, v)
				}
			}
		}
		for k, sum := range b.Summaries {
			if !declared[k] {
				return fmt.Errorf("%s: %s: summary %s without a metric", path, b.Key(), k)
			}
			if sum.N < 0 || sum.StdErr < 0 {
				return fmt.Errorf("%s: %s: summary %s: %+v", path, b.Key(), k, sum)
			}
		}
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("%s: encode: %v", path, err)
	}
	back, err := Decode(path, data)
	if err != nil {
		return fmt.Errorf("%s: decode what was encoded: %v", path, err)
	}
	// A figure the tool did not print stays absent through JSON, and one
	// it printed stays there.
	for i, b := range s.Benchmarks {
		for k, r := range b.Runs {
			if got := back.Benchmarks[i].Runs[k].Lacks; got != r.Lacks {
				return fmt.Errorf("%s: %s: run %d lacks %07b, read back as lacking %07b", path, b.Key(), k, r.Lacks, got)
			}
		}
	}
	return nil
}

// near tells whether a and b agree to a relative 1e-9.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// bench returns the only benchmark of s with workload w.
func bench(t *testing.T, s *Set, w string) *Benchmark {
	t.Helper()
	var found *Benchmark
	for _, b := range s.Benchmarks {
		if b.Workload == w {
			if found != nil {
				t.Fatalf("two benchmarks of workload %s", w)
			}
			found = b
		}
	}
	if found == nil {
		var have []string
		for _, b := range s.Benchmarks {
			have = append(have, b.Key())
		}
		t.Fatalf("no benchmark of workload %s; have %v", w, have)
	}
	return found
}

func metric(t *testing.T, b *Benchmark, name string) Metric {
	t.Helper()
	for _, m := range b.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("%s: no metric %s in %+v", b.Key(), name, b.Metrics)
	return Metric{}
}

func TestFormats(t *testing.T) {
	want := []string{"perf-stat", "perf-stat-csv", "perf-stat-json", "perf-bench", "stress-ng", "stress-ng-yaml", "hackbench", "schbench", "cyclictest", "benchfmt", "table"}
	if got := Formats(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
}

// TestDetect detects the format of every file in testdata/import.
func TestDetect(t *testing.T) {
	formats := []struct {
		pattern, format string
	}{
		{`^perf-stat.*\.txt$`, "perf-stat"},
		{`^perf-stat.*\.csv$`, "perf-stat-csv"},
		{`^perf-stat.*\.json$`, "perf-stat-json"},
		{`^perf-bench-simple`, ""}, // bare numbers: ambiguous
		{`^perf-bench-`, "perf-bench"},
		{`^stress-ng.*\.yaml$`, "stress-ng-yaml"},
		{`^stress-ng.*\.txt$`, "stress-ng"},
		{`^hackbench`, "hackbench"},
		{`^schbench`, "schbench"},
		{`^cyclictest`, "cyclictest"},
		{`^benchfmt`, "benchfmt"},
		{`^seed-001`, "perf-stat"},
		{`^seed-00[02]`, "table"},
	}
	files, err := os.ReadDir(importDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		if f.Name() == "README" {
			continue
		}
		want, known := "", false
		for _, p := range formats {
			if regexp.MustCompile(p.pattern).MatchString(f.Name()) {
				want, known = p.format, true
				break
			}
		}
		if !known {
			t.Errorf("%s: no expected format in this test", f.Name())
			continue
		}
		seen++
		path := filepath.Join(importDir, f.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Import(path, data, "")
		if want == "" {
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), "ambiguous") {
				t.Errorf("%s: got %v, want an ambiguous-input SyntaxError", f.Name(), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f.Name(), err)
			continue
		}
		if s.Tool != "import "+want {
			t.Errorf("%s: detected as %q, want %q", f.Name(), s.Tool, "import "+want)
		}
		checkSet(t, path, s)
	}
	if seen < 30 {
		t.Errorf("only %d captured files checked", seen)
	}
}

// TestDetectAmbiguous checks that two formats' signatures in one input are
// an error that names both and their lines, except perf stat wrapping the
// output of the command it measured.
func TestDetectAmbiguous(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       string // "" for success
	}{
		{"bench and hackbench", "Time: 0.5\nBenchmarkX 100 5 ns/op\n", "hackbench (line 1) and benchfmt (line 2)"},
		{"table and stress-ng yaml", "| a | b |\n|---|---|\n| 1 | 2 |\nmetrics:\n    - stressor: kill\n", "stress-ng-yaml (line 5)"},
		{"perf stat over perf bench", "# Running 'sched/pipe' benchmark:\n\n Performance counter stats for 'x':\n\n 5 context-switches\n\n 1.0 seconds time elapsed\n", ""},
		{"perf stat over hackbench", "Time: 0.5\n Performance counter stats for 'hackbench':\n 5 context-switches\n 1.0 seconds time elapsed\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Import("in.txt", []byte(tc.data), "")
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.Tool != "import perf-stat" {
					t.Errorf("tool %q, want import perf-stat", s.Tool)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ambiguous naming %q", err, tc.want)
			}
		})
	}
}

// TestImportErrors checks that bad input gives one line naming the file,
// the line and what was expected, for every format and for detection.
func TestImportErrors(t *testing.T) {
	read := func(file string) string {
		b, err := os.ReadFile(filepath.Join(importDir, file))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// upto returns the first n lines of a captured file: a truncated copy.
	upto := func(file string, n int) string {
		l := strings.SplitAfter(read(file), "\n")
		return strings.Join(l[:n], "")
	}
	garbage := "hello world\nthis is not\nany tool's output\n"
	cases := []struct {
		name, format, data string
		line               int
		msg                string
	}{
		{"empty detect", "", "", 1, "empty input"},
		{"blank detect", "", "  \n\n\t\n", 1, "empty input"},
		{"garbage detect", "", garbage, 1, "unknown format"},
		{"garbage after blank lines", "", "\n\n" + garbage, 3, "unknown format"},
		{"bare numbers", "", "0.118\n0.048\n", 1, "ambiguous"},

		{"perf-stat empty", "perf-stat", "", 1, "empty input: expected perf stat"},
		{"perf-stat garbage", "perf-stat", garbage, 3, "no results found"},
		{"perf-stat truncated", "perf-stat", upto("perf-stat-r5-pipe.txt", 6), 6, "expected 'seconds time elapsed'"},
		{"perf-stat header only", "perf-stat", upto("perf-stat-r5-pipe.txt", 2), 2, "unexpected end of input"},
		{"perf-stat bad line", "perf-stat", " Performance counter stats for 'x':\n 5 cs\n what is this\n", 3, "expected a counter line"},
		{"perf-stat interval", "perf-stat", "#           time             counts unit events\n     1.001  5  cs\n", 1, "interval"},
		{"perf-stat two headers", "perf-stat", " Performance counter stats for 'x':\n 5 cs\n Performance counter stats for 'y':\n", 3, "before the next header"},

		{"csv empty", "perf-stat-csv", "\n", 1, "empty input"},
		{"csv garbage", "perf-stat-csv", "a,b,c,d\n", 1, "expected a perf stat -x, record"},
		{"csv per-cpu", "perf-stat-csv", "CPU0,386,,context-switches,39658244,100.00,9.733,K/sec\n", 1, "per-CPU"},
		{"csv truncated", "perf-stat-csv", "48.5", 1, "no results found"},
		{"csv bad variance", "perf-stat-csv", "48.53,msec,task-clock,x.5%,48525068,100.00,0.637,CPUs utilized\n", 1, "variance"},

		{"json truncated", "perf-stat-json", upto("perf-stat-r3-messaging.json", 1) + `{"counter-value" : "1701.0`, 2, "expected a perf stat -j JSON object"},
		{"json interval", "perf-stat-json", `{"interval" : 1.0, "counter-value" : "5", "event" : "cs"}`, 1, "not supported"},
		{"json no event", "perf-stat-json", `{"counter-value" : "5"}`, 1, `expected a perf stat -j object with "event"`},
		{"json bad value", "perf-stat-json", `{"counter-value" : [1], "event" : "cs"}`, 1, `"counter-value" as a number or a string, found an array`},
		{"json garbage", "perf-stat-json", garbage, 3, "no results found"},

		{"perf-bench truncated", "perf-bench", upto("perf-bench-sched-pipe.txt", 4), 4, "expected 'N usecs/op' in the 'sched/pipe' run of line 1"},
		{"perf-bench truncated syscall", "perf-bench", upto("perf-bench-syscall-basic-x3.txt", 8), 8, "expected 'Total time: S [sec]' in the 'syscall/basic' run of line 7"},
		{"perf-bench cut between runs", "perf-bench", upto("perf-bench-sched-pipe-x3.txt", 13), 13, "expected 'N ops/sec' in the 'sched/pipe' run of line 8"},
		{"perf-bench no header", "perf-bench", "     Total time: 0.119 [sec]\n", 1, "expected \"# Running 'SUITE/BENCH' benchmark:\" before"},
		{"perf-bench garbage", "perf-bench", garbage, 1, "expected \"# Running"},

		{"stress-ng truncated", "stress-ng", upto("stress-ng-kill-metrics.txt", 4), 4, "expected a metrics line per stressor after the header of line 3"},
		{"stress-ng short line", "stress-ng", "stress-ng: metrc: [1] stressor       bogo ops real time\nstress-ng: metrc: [1] kill 2000 0.38 0.01\n", 2, "found 3 numbers"},
		{"stress-ng garbage", "stress-ng", garbage, 1, "expected stress-ng --metrics output"},

		{"yaml truncated", "stress-ng-yaml", upto("stress-ng-kill.yaml", 30), 30, "expected '...' to end the YAML document of line 1"},
		{"yaml bad number", "stress-ng-yaml", "metrics:\n    - stressor: kill\n      bogo-ops: many\n", 3, "bogo-ops: bad number"},
		{"yaml key before stressor", "stress-ng-yaml", "metrics:\n      bogo-ops: 5\n", 2, "expected '- stressor: NAME' before bogo-ops"},
		{"yaml no stressor name", "stress-ng-yaml", "metrics:\n    - stressor: \n", 2, "expected a stressor name"},
		{"yaml garbage", "stress-ng-yaml", garbage, 1, "expected stress-ng --yaml output"},

		{"hackbench truncated", "hackbench", upto("hackbench-x5.txt", 5), 5, "expected 'Time: S' for the run of line 4"},
		{"hackbench two headers", "hackbench", upto("hackbench-x5.txt", 2) + upto("hackbench-x5.txt", 3), 3, "before the next run"},
		{"hackbench garbage", "hackbench", garbage, 1, "expected hackbench output"},

		{"benchfmt truncated", "benchfmt", upto("benchfmt.txt", 5) + "BenchmarkGetppid-2   \t     100\n", 6, "missing measurements"},
		{"benchfmt bad value", "benchfmt", "BenchmarkX 100 1.2.3 ns/op\n", 1, "parsing measurement"},
		{"benchfmt garbage", "benchfmt", garbage, 1, "expected Go benchmark results"},

		{"table header only", "table", upto("seed-002-baseline.md", 3), 3, "expected rows after the table header of line 2"},
		{"table short row", "table", upto("seed-002-baseline.md", 4) + "| 2 | 10.064 ms |\n", 5, "expected 4 cells as in the header of line 2, found 2"},
		{"table bad cell", "table", upto("seed-002-baseline.md", 4) + "| 2 | fast | 9.982 ms | 16.470 ms |\n", 5, `expected a number in column "Mean", found "fast"`},
		{"table mixed units", "table", "| Run | Mean |\n|---|---|\n| 1 | 5 ms |\n| 2 | 5 KB |\n", 4, "mixes units ms and KB"},
		{"table no numbers", "table", "| a | b |\n|---|---|\n| x | y |\n", 1, "expected a column of numbers"},
		{"table garbage", "table", garbage, 1, "expected a table"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const name = "dir/in.txt"
			s, err := Import(name, []byte(tc.data), tc.format)
			if err == nil {
				t.Fatalf("no error; imported %d benchmarks", len(s.Benchmarks))
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%v: not a *SyntaxError", err)
			}
			if se.File != name || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %q\nwant %s:%d: ...%s...", err, name, tc.line, tc.msg)
			}
			if want := fmt.Sprintf("%s:%d: %s", se.File, se.Line, se.Msg); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestImportUnknownFormat(t *testing.T) {
	_, err := Import("x.txt", []byte("Time: 1\n"), "vmstat")
	if err == nil || !strings.Contains(err.Error(), `unknown import format "vmstat"`) || !strings.Contains(err.Error(), "hackbench") {
		t.Errorf("got %v", err)
	}
}

// TestImportIdentity checks the set's identity: the same content
// imported twice is two sets with ids of their own (issue 35 point 9: they
// were one, the last import's labels winning), the source label is the
// base name, and CRLF line ends read as LF.
var idRE = regexp.MustCompile(`^\d{8}T\d{6}-[0-9a-f]{12}$`)

func TestImportIdentity(t *testing.T) {
	data := []byte("Running in process mode with 1 groups using 40 file descriptors each (== 40 tasks)\nEach sender will pass 10 messages of 100 bytes\nTime: 0.068\n")
	a, err := Import("/some/where/a.txt", data, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Import("b.txt", data, "hackbench")
	if err != nil {
		t.Fatal(err)
	}
	if a.Labels["source"] != "a.txt" || b.Labels["source"] != "b.txt" {
		t.Errorf("source labels %q %q", a.Labels["source"], b.Labels["source"])
	}
	if a.ID == b.ID {
		t.Errorf("the same content imported twice has one id %s", a.ID)
	}
	if !idRE.MatchString(a.ID) || !idRE.MatchString(b.ID) {
		t.Errorf("ids %s and %s are not TIME-HEX", a.ID, b.ID)
	}
	if a.Tool != "import hackbench" {
		t.Errorf("tool %q", a.Tool)
	}
	crlf := []byte(strings.ReplaceAll(string(data), "\n", "\r\n"))
	c, err := Import("c.txt", crlf, "")
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Benchmarks[0].Runs[0].Values["time"]; v != 0.068 {
		t.Errorf("CRLF input: time %v, want 0.068", v)
	}
}
