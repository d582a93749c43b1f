package result

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// statFigures reads the counter lines of a perf stat -r text report by
// splitting fields, not by the importer's expressions: event -> value and
// relative error in percent.
func statFigures(t *testing.T, file string) map[string][2]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(importDir, file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] == "Performance" || strings.HasPrefix(f[0], "<") || strings.Contains(sc.Text(), "elapsed") {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(f[0], ",", ""), 64)
		if err != nil {
			continue
		}
		ev := f[1]
		if ev == "msec" {
			ev = f[2]
		}
		pct := 0.0
		for i := range f {
			if f[i] == "+-" && i+1 < len(f) && strings.HasSuffix(f[i+1], "%") {
				pct, _ = strconv.ParseFloat(strings.TrimSuffix(f[i+1], "%"), 64)
			}
		}
		out[ev] = [2]float64{v, pct}
	}
	return out
}

func TestImportPerfStatRepeat(t *testing.T) {
	for _, tc := range []struct {
		file, command string
		n             int
		elapsed       [2]float64 // mean, stderr as printed
	}{
		{"perf-stat-r5-pipe.txt", "perf bench sched pipe -l 10000", 5, [2]float64{0.235, 0.123}},
		{"perf-stat-r3-wrapped-messaging.txt", "perf bench sched messaging -g 1 -l 10", 3, [2]float64{0.1350, 0.0230}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "perf-stat")
			b := bench(t, s, "perf-stat")
			if b.Params["command"] != tc.command || len(b.Params) != 1 {
				t.Errorf("params %v, want command %q", b.Params, tc.command)
			}
			if len(b.Runs) != 0 {
				t.Errorf("%d runs, want summaries only", len(b.Runs))
			}
			want := statFigures(t, tc.file)
			if len(want) != 4 {
				t.Fatalf("test reads %d counters from the file, want 4: %v", len(want), want)
			}
			for ev, w := range want {
				got, ok := b.Summaries[ev]
				if !ok {
					t.Errorf("no summary of %s", ev)
					continue
				}
				if got.N != tc.n || !near(got.Mean, w[0]) || !near(got.StdErr, w[0]*w[1]/100) {
					t.Errorf("%s: %+v, want n=%d mean %v stderr %v", ev, got, tc.n, w[0], w[0]*w[1]/100)
				}
				// Times are costs; counts of the kernel's work have no
				// better side of their own.
				want := Neither
				if ev == "task-clock" || ev == "elapsed" {
					want = Lower
				}
				if m := metric(t, b, ev); m.Better != want {
					t.Errorf("%s: better %s, want %s", ev, m.Better, want)
				}
			}
			if u := metric(t, b, "task-clock").Unit; u != "msec" {
				t.Errorf("task-clock unit %q, want msec", u)
			}
			el := b.Summaries["elapsed"]
			if el.N != tc.n || el.Mean != tc.elapsed[0] || el.StdErr != tc.elapsed[1] {
				t.Errorf("elapsed %+v, want n=%d %v +- %v", el, tc.n, tc.elapsed[0], tc.elapsed[1])
			}
			if m := metric(t, b, "elapsed"); m.Unit != "s" || m.Better != Lower {
				t.Errorf("elapsed metric %+v", m)
			}
			for _, ev := range []string{"cycles", "instructions", "branches", "branch-misses"} {
				if _, ok := b.Summaries[ev]; ok || hasMetric(b, ev) {
					t.Errorf("%s <not supported> has a figure", ev)
				}
			}
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "cycles, instructions, branches, branch-misses <not supported>") {
				t.Errorf("warnings %q", s.Warnings)
			}
		})
	}
}

func TestImportPerfStatSingle(t *testing.T) {
	s := importFile(t, "perf-stat-messaging.txt", "")
	b := bench(t, s, "perf-stat")
	if len(b.Runs) != 1 || len(b.Summaries) != 0 {
		t.Fatalf("%d runs, %d summaries; want one run", len(b.Runs), len(b.Summaries))
	}
	r := b.Runs[0]
	want := map[string]float64{"task-clock": 38.43, "context-switches": 196, "cpu-migrations": 0, "page-faults": 7310,
		"elapsed": 0.047036693, "user": 0.026995, "sys": 0.020098}
	if len(r.Values) != len(want) {
		t.Errorf("values %v, want %v", r.Values, want)
	}
	for k, v := range want {
		if got, ok := r.Values[k]; !ok || got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if r.WallSec != 0.047036693 || r.UserSec != 0.026995 || r.SysSec != 0.020098 {
		t.Errorf("wall %v user %v sys %v", r.WallSec, r.UserSec, r.SysSec)
	}
	// perf stat prints the times, not the command's exit code, its
	// rusage context switches or its RSS.
	if r.Lacks != FigExitCode|FigCtxSw|FigMaxRSS {
		t.Errorf("lacks %07b, want the exit code, context switches and RSS", r.Lacks)
	}
	if len(s.Warnings) != 1 {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// TestImportPerfStatSeed001 reads the two perf stat blocks of seed mail
// 001 as summaries, n from the --repeat of the quoted command line.
func TestImportPerfStatSeed001(t *testing.T) {
	for _, tc := range []struct {
		file       string
		cs, csPct  float64
		el, elErr  float64
		warnings   int
		n          int
		metricsLen int
	}{
		{"seed-001-preempt-auto.txt", 3080508, 0.64, 3.65171, 0.00654, 0, 10, 2},
		{"seed-001-preempt-dynamic.txt", 3087527, 0.33, 3.60163, 0.00633, 0, 10, 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "")
			if s.Tool != "import perf-stat" {
				t.Errorf("tool %q", s.Tool)
			}
			b := bench(t, s, "perf-stat")
			if b.Params["command"] != "perf bench sched messaging -g 20 -t -l 5000" {
				t.Errorf("params %v", b.Params)
			}
			cs := b.Summaries["context-switches"]
			if cs.N != 10 || cs.Mean != tc.cs || !near(cs.StdErr, tc.cs*tc.csPct/100) {
				t.Errorf("context-switches %+v, want n=10 mean %v stderr %v", cs, tc.cs, tc.cs*tc.csPct/100)
			}
			el := b.Summaries["elapsed"]
			if el.N != 10 || el.Mean != tc.el || el.StdErr != tc.elErr {
				t.Errorf("elapsed %+v", el)
			}
			if len(b.Metrics) != tc.metricsLen || len(s.Warnings) != tc.warnings {
				t.Errorf("metrics %v warnings %q", b.Metrics, s.Warnings)
			}
		})
	}
	// The voluntary/involuntary breakdown: explicit standard errors, and
	// no run count in the mail.
	for _, tc := range []struct {
		file            string
		vol, volErr     float64
		invol, involErr float64
	}{
		{"seed-001-voluntary-auto.txt", 2087910.00, 34720.95, 784437.60, 19827.79},
		{"seed-001-voluntary-dynamic.txt", 2102879.60, 22767.11, 801189.90, 21324.18},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "perf-stat")
			b := bench(t, s, "perf-stat")
			v, iv := b.Summaries["voluntary-context-switches"], b.Summaries["involuntary-context-switches"]
			if v.Mean != tc.vol || v.StdErr != tc.volErr || iv.Mean != tc.invol || iv.StdErr != tc.involErr {
				t.Errorf("voluntary %+v involuntary %+v", v, iv)
			}
			if v.N != 0 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "n = 0 (unknown)") {
				t.Errorf("n %d, warnings %q: want n = 0 and a warning", v.N, s.Warnings)
			}
			// The run count comes from a perf stat command line put
			// above the figures.
			data, _ := os.ReadFile(filepath.Join(importDir, tc.file))
			s, err := Import(tc.file, append([]byte("$ perf stat -r 10 -e cs -a -- hackbench\n"), data...), "")
			if err != nil {
				t.Fatal(err)
			}
			b = bench(t, s, "perf-stat")
			if n := b.Summaries["voluntary-context-switches"].N; n != 10 || b.Params["command"] != "hackbench" || len(s.Warnings) != 0 {
				t.Errorf("with a command line: n %d, params %v, warnings %q", n, b.Params, s.Warnings)
			}
		})
	}
}

func TestImportPerfStatBlocks(t *testing.T) {
	single := func(cmd, cs string) string {
		return " Performance counter stats for '" + cmd + "':\n\n" + cs + "      context-switches\n\n 0.5 seconds time elapsed\n\n 0.1 seconds user\n 0.2 seconds sys\n\n"
	}
	repeat := func(cmd, cs string) string {
		return " Performance counter stats for '" + cmd + "' (3 runs):\n\n" + cs + "      context-switches    ( +-  1.00% )\n\n 0.5 +- 0.1 seconds time elapsed  ( +- 20.00% )\n\n"
	}
	t.Run("single runs concatenated", func(t *testing.T) {
		s, err := Import("x", []byte(single("a", "1,000")+single("a", "2,000")+single("b", "7")), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Benchmarks) != 2 {
			t.Fatalf("%d benchmarks", len(s.Benchmarks))
		}
		a := s.Benchmarks[0]
		if got := a.Values("context-switches"); len(got) != 2 || got[0] != 1000 || got[1] != 2000 {
			t.Errorf("command a: %v", got)
		}
		if got := a.Values("sys"); len(got) != 2 || got[1] != 0.2 {
			t.Errorf("sys: %v", got)
		}
	})
	t.Run("repeat blocks of one command", func(t *testing.T) {
		s, err := Import("x", []byte(repeat("a", "10")+repeat("a", "20")+single("a", "30")), "perf-stat")
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Benchmarks) != 3 {
			t.Fatalf("%d benchmarks, want 3", len(s.Benchmarks))
		}
		for i, want := range []string{"command=a", "block=2,command=a", "block=3,command=a"} {
			if got := FormatParams(s.Benchmarks[i].Params); got != want {
				t.Errorf("benchmark %d: params %s, want %s", i, got, want)
			}
		}
		if m := s.Benchmarks[1].Summaries["context-switches"]; m.N != 3 || m.Mean != 20 || !near(m.StdErr, 0.2) {
			t.Errorf("second block %+v", m)
		}
	})
	t.Run("prose is not a counter", func(t *testing.T) {
		in := "Some words.\n 1 file changed, 10 insertions(+), 4 deletions(-)\n 42 things\n   5,000  context-switches  ( +-  2.00% )\n"
		s, err := Import("x", []byte(in), "")
		if err != nil {
			t.Fatal(err)
		}
		b := s.Benchmarks[0]
		if len(b.Metrics) != 1 || b.Summaries["context-switches"].Mean != 5000 {
			t.Errorf("metrics %v summaries %v", b.Metrics, b.Summaries)
		}
	})
	t.Run("started on", func(t *testing.T) {
		in := "# started on Sat Nov 30 07:55:47 2026\n\n" + single("a", "5")
		s, err := Import("x", []byte(in), "")
		if err != nil {
			t.Fatal(err)
		}
		want := time.Date(2026, 11, 30, 7, 55, 47, 0, time.Local).UTC()
		if !s.Created.Equal(want) || !s.Benchmarks[0].Runs[0].Start.Equal(want) {
			t.Errorf("created %v, want %v", s.Created, want)
		}
	})
	t.Run("not counted", func(t *testing.T) {
		in := " Performance counter stats for 'a':\n\n     <not counted>      cycles\n 5 context-switches\n 0.1 seconds time elapsed\n"
		s, err := Import("x", []byte(in), "")
		if err != nil {
			t.Fatal(err)
		}
		if hasMetric(s.Benchmarks[0], "cycles") || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "x:3: perf stat: cycles <not counted>") {
			t.Errorf("metrics %v warnings %q", s.Benchmarks[0].Metrics, s.Warnings)
		}
	})
}

// TestImportPerfStatCSV compares the importer with encoding/csv's reading
// of the same files.
func TestImportPerfStatCSV(t *testing.T) {
	for _, tc := range []struct {
		file    string
		summary bool
	}{
		{"perf-stat-r3-true.csv", true},
		{"perf-stat-r3-messaging.csv", true},
		{"perf-stat-messaging.csv", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "")
			if s.Tool != "import perf-stat-csv" {
				t.Errorf("tool %q", s.Tool)
			}
			b := bench(t, s, "perf-stat")
			f, err := os.Open(filepath.Join(importDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cr := csv.NewReader(f)
			cr.FieldsPerRecord = -1
			recs, err := cr.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			counted := 0
			for _, rec := range recs {
				ev := rec[2]
				v, err := strconv.ParseFloat(rec[0], 64)
				if err != nil {
					if hasMetric(b, ev) {
						t.Errorf("%s (%s) has a metric", ev, rec[0])
					}
					continue
				}
				counted++
				if m := metric(t, b, ev); m.Unit != rec[1] {
					t.Errorf("%s: unit %q, want %q", ev, m.Unit, rec[1])
				}
				if !tc.summary {
					if got := b.Runs[0].Values[ev]; got != v {
						t.Errorf("%s = %v, want %v", ev, got, v)
					}
					continue
				}
				pct, _ := strconv.ParseFloat(strings.TrimSuffix(rec[3], "%"), 64)
				got := b.Summaries[ev]
				if got.Mean != v || !near(got.StdErr, v*pct/100) || got.N != 0 {
					t.Errorf("%s: %+v, want mean %v stderr %v n 0", ev, got, v, v*pct/100)
				}
			}
			if counted != len(b.Metrics) || counted == 0 {
				t.Errorf("%d counted events, %d metrics", counted, len(b.Metrics))
			}
			if tc.summary && !strings.Contains(strings.Join(s.Warnings, "\n"), "n = 0 (unknown)") {
				t.Errorf("no warning about the unknown run count: %q", s.Warnings)
			}
		})
	}
}

// TestImportPerfStatJSON compares the importer with encoding/json's
// reading of the same files.
func TestImportPerfStatJSON(t *testing.T) {
	for _, tc := range []struct {
		file    string
		summary bool
	}{
		{"perf-stat-r3-true.json", true},
		{"perf-stat-r3-messaging.json", true},
		{"perf-stat-messaging.json", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "")
			if s.Tool != "import perf-stat-json" {
				t.Errorf("tool %q", s.Tool)
			}
			b := bench(t, s, "perf-stat")
			data, err := os.ReadFile(filepath.Join(importDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			counted := 0
			for dec.More() {
				var rec struct {
					Value    string   `json:"counter-value"`
					Unit     string   `json:"unit"`
					Event    string   `json:"event"`
					Variance *float64 `json:"variance"`
				}
				if err := dec.Decode(&rec); err != nil {
					t.Fatal(err)
				}
				v, err := strconv.ParseFloat(rec.Value, 64)
				if err != nil {
					if hasMetric(b, rec.Event) {
						t.Errorf("%s (%s) has a metric", rec.Event, rec.Value)
					}
					continue
				}
				counted++
				if m := metric(t, b, rec.Event); m.Unit != rec.Unit {
					t.Errorf("%s: unit %q, want %q", rec.Event, m.Unit, rec.Unit)
				}
				if (rec.Variance != nil) != tc.summary {
					t.Fatalf("%s: variance %v in a file of summary=%v", rec.Event, rec.Variance, tc.summary)
				}
				if !tc.summary {
					if got := b.Runs[0].Values[rec.Event]; got != v {
						t.Errorf("%s = %v, want %v", rec.Event, got, v)
					}
					continue
				}
				got := b.Summaries[rec.Event]
				if got.Mean != v || !near(got.StdErr, v**rec.Variance/100) {
					t.Errorf("%s: %+v, want mean %v stderr %v", rec.Event, got, v, v**rec.Variance/100)
				}
			}
			if counted != len(b.Metrics) || counted == 0 {
				t.Errorf("%d counted events, %d metrics", counted, len(b.Metrics))
			}
		})
	}
}
