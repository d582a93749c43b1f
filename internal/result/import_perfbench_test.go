package result

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchFigures reads a perf bench file by fields, not by the importer's
// expressions: per run ("# Running" block), the Total time, usecs/op and
// ops/sec as printed (-1 when the run has none).
func benchFigures(t *testing.T, file string) [][3]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(importDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var runs [][3]float64
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "# Running"):
			runs = append(runs, [3]float64{-1, -1, -1})
		case len(f) == 4 && f[0] == "Total" && f[1] == "time:":
			runs[len(runs)-1][0], _ = strconv.ParseFloat(f[2], 64)
		case len(f) == 2 && f[1] == "usecs/op":
			runs[len(runs)-1][1], _ = strconv.ParseFloat(f[0], 64)
		case len(f) == 2 && f[1] == "ops/sec":
			runs[len(runs)-1][2], _ = strconv.ParseFloat(f[0], 64)
		}
	}
	return runs
}

func TestImportPerfBench(t *testing.T) {
	for _, tc := range []struct {
		file     string
		workload string
		params   string
		runs     int
		// metrics in order, and which figure of benchFigures each is:
		// 0 time, 1 usecs/op (×1000 for ns/call), 2 ops/sec.
		metrics []string
		figure  []int
		ops     float64
	}{
		{"perf-bench-syscall-basic.txt", "perf-bench-syscall-basic", "calls=1000000,syscall=getppid", 1,
			[]string{"time", "ns/call", "calls/s"}, []int{0, 1, 2}, 1e6},
		{"perf-bench-syscall-basic-x3.txt", "perf-bench-syscall-basic", "calls=1000000,syscall=getppid", 3,
			[]string{"time", "ns/call", "calls/s"}, []int{0, 1, 2}, 1e6},
		{"perf-bench-sched-pipe.txt", "perf-bench-sched-pipe", "loops=10000,mode=process", 1,
			[]string{"time", "usecs/op", "ops/s"}, []int{0, 1, 2}, 10000},
		{"perf-bench-sched-pipe-x3.txt", "perf-bench-sched-pipe", "loops=10000,mode=process", 3,
			[]string{"time", "usecs/op", "ops/s"}, []int{0, 1, 2}, 10000},
		{"perf-bench-sched-pipe-threads.txt", "perf-bench-sched-pipe", "loops=10000,mode=thread", 1,
			[]string{"time", "usecs/op", "ops/s"}, []int{0, 1, 2}, 10000},
		{"perf-bench-sched-messaging.txt", "perf-bench-sched-messaging", "fds=20,groups=1,mode=process", 1,
			[]string{"time"}, []int{0}, 0},
		{"perf-bench-sched-messaging-x3.txt", "perf-bench-sched-messaging", "fds=20,groups=1,mode=process", 3,
			[]string{"time"}, []int{0}, 0},
		{"perf-bench-sched-messaging-threads.txt", "perf-bench-sched-messaging", "fds=20,groups=1,mode=thread", 1,
			[]string{"time"}, []int{0}, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "")
			if s.Tool != "import perf-bench" || len(s.Benchmarks) != 1 {
				t.Fatalf("tool %q, %d benchmarks", s.Tool, len(s.Benchmarks))
			}
			b := bench(t, s, tc.workload)
			if got := FormatParams(b.Params); got != tc.params {
				t.Errorf("params %s, want %s", got, tc.params)
			}
			var names []string
			for _, m := range b.Metrics {
				names = append(names, m.Name)
			}
			if strings.Join(names, " ") != strings.Join(tc.metrics, " ") {
				t.Errorf("metrics %v, want %v", names, tc.metrics)
			}
			want := benchFigures(t, tc.file)
			if len(b.Runs) != tc.runs || len(want) != tc.runs {
				t.Fatalf("%d runs, file has %d, want %d", len(b.Runs), len(want), tc.runs)
			}
			for i, r := range b.Runs {
				if r.Ops != tc.ops {
					t.Errorf("run %d: ops %v, want %v", i, r.Ops, tc.ops)
				}
				for k, m := range tc.metrics {
					w := want[i][tc.figure[k]]
					if m == "ns/call" {
						w *= 1000
					}
					if got := r.Values[m]; !near(got, w) {
						t.Errorf("run %d: %s = %v, want %v", i, m, got, w)
					}
				}
			}
		})
	}
}

// TestImportPerfBenchUnits checks that the metrics are those of kdelta's
// own syscall, pipe and messaging workloads, so the two compare.
func TestImportPerfBenchUnits(t *testing.T) {
	want := map[string]Metric{
		"ns/call":  {Name: "ns/call", Unit: "ns", Better: Lower},
		"calls/s":  {Name: "calls/s", Unit: "calls/s", Better: Higher},
		"usecs/op": {Name: "usecs/op", Unit: "us", Better: Lower},
		"ops/s":    {Name: "ops/s", Unit: "ops/s", Better: Higher},
		"time":     {Name: "time", Unit: "s", Better: Lower},
	}
	for _, f := range []string{"perf-bench-syscall-basic.txt", "perf-bench-sched-pipe.txt", "perf-bench-sched-messaging.txt"} {
		s := importFile(t, f, "perf-bench")
		for _, m := range s.Benchmarks[0].Metrics {
			w := want[m.Name]
			if m.Name != w.Name || m.Unit != w.Unit || m.Better != w.Better {
				t.Errorf("%s: metric %+v, want %+v", f, m, w)
			}
		}
	}
	// 0.617647 usecs/op is 617.647 ns as printed, without binary noise.
	s := importFile(t, "perf-bench-syscall-basic.txt", "")
	if v := s.Benchmarks[0].Runs[0].Values["ns/call"]; v != 617.647 {
		t.Errorf("ns/call = %v, want 617.647", v)
	}
}

func TestImportPerfBenchSimple(t *testing.T) {
	s := importFile(t, "perf-bench-simple-pipe-x3.txt", "perf-bench")
	b := bench(t, s, "perf-bench")
	if got := b.Values("time"); len(got) != 3 || got[0] != 0.118 || got[1] != 0.048 || got[2] != 0.039 {
		t.Errorf("time %v, want [0.118 0.048 0.039]", got)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "does not name the benchmark") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// TestImportPerfBenchMixed reads runs of different benchmarks and
// parameters in one file, and perf bench all's unquoted headers.
func TestImportPerfBenchMixed(t *testing.T) {
	var in []byte
	for _, f := range []string{"perf-bench-sched-pipe.txt", "perf-bench-sched-pipe-threads.txt", "perf-bench-sched-pipe-x3.txt", "perf-bench-syscall-basic.txt"} {
		data, err := os.ReadFile(filepath.Join(importDir, f))
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, data...)
	}
	in = append(in, "# Running sched/messaging benchmark...\n# 20 sender and receiver processes per group\n# 10 groups == 400 processes run\n\n     Total time: 0.150 [sec]\n"...)
	s, err := Import("mixed.txt", in, "")
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, "mixed.txt", s)
	var got []string
	for _, b := range s.Benchmarks {
		got = append(got, b.Key()+" x"+strconv.Itoa(len(b.Runs)))
	}
	want := []string{
		"perf-bench-sched-pipe:loops=10000,mode=process x4",
		"perf-bench-sched-pipe:loops=10000,mode=thread x1",
		"perf-bench-syscall-basic:calls=1000000,syscall=getppid x1",
		"perf-bench-sched-messaging:fds=20,groups=10,mode=process x1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("benchmarks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
