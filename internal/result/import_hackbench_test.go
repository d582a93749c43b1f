package result

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestImportHackbench(t *testing.T) {
	for _, tc := range []struct {
		file, params string
	}{
		{"hackbench.txt", "fds=20,groups=1,loops=10,mode=process,size=100"},
		{"hackbench-x5.txt", "fds=20,groups=1,loops=10,mode=process,size=100"},
		{"hackbench-threads-pipe.txt", "fds=20,groups=1,loops=10,mode=thread,size=100"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := importFile(t, tc.file, "")
			if s.Tool != "import hackbench" || len(s.Benchmarks) != 1 {
				t.Fatalf("tool %q, %d benchmarks", s.Tool, len(s.Benchmarks))
			}
			b := bench(t, s, "hackbench")
			if got := FormatParams(b.Params); got != tc.params {
				t.Errorf("params %s, want %s", got, tc.params)
			}
			if m := metric(t, b, "time"); m.Unit != "s" || m.Better != Lower || len(b.Metrics) != 1 {
				t.Errorf("metrics %+v", b.Metrics)
			}
			// The Time lines, read by fields.
			data, err := os.ReadFile(filepath.Join(importDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var want []float64
			for _, l := range strings.Split(string(data), "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[0] == "Time:" {
					v, _ := strconv.ParseFloat(f[1], 64)
					want = append(want, v)
				}
			}
			if got := b.Values("time"); len(want) == 0 || !equalFloats(got, want) {
				t.Errorf("time %v, want %v", got, want)
			}
		})
	}
	// The five runs as the file shows them.
	s := importFile(t, "hackbench-x5.txt", "hackbench")
	if got := s.Benchmarks[0].Values("time"); !equalFloats(got, []float64{0.012, 0.019, 0.016, 0.010, 0.017}) {
		t.Errorf("time %v", got)
	}
}

// TestImportHackbenchBare reads the original hackbench.c's output: Time
// lines alone, with no parameters to tell.
func TestImportHackbenchBare(t *testing.T) {
	s, err := Import("old.txt", []byte("Time: 1.5\nTime: 1,600.25\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	b := bench(t, s, "hackbench")
	if len(b.Params) != 0 || !equalFloats(b.Values("time"), []float64{1.5, 1600.25}) {
		t.Errorf("params %v time %v", b.Params, b.Values("time"))
	}
}
