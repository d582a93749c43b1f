package result

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The importers read files from mails and other tools' output: whatever
// the input, they return a valid set or a *SyntaxError naming the file and
// a line of it, and never panic.

// addSeeds adds the captured files whose names match one of the globs, and
// a few inputs cut short or bent.
func addSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		files, err := filepath.Glob(filepath.Join(importDir, g))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			f.Add(data[:len(data)/2])
			f.Add(bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
		}
	}
	for _, s := range []string{"", "\n", "0", "1e999\n", "-0\n", "NaN\n", "|\n|-|\n", "\xff\xfe"} {
		f.Add([]byte(s))
	}
}

// checkImport runs one importer and checks the contract.
func checkImport(t *testing.T, data []byte, format string) {
	const name = "fuzz/in.txt"
	s, err := Import(name, data, format)
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("format %q: error %v (%T) is not a *SyntaxError", format, err, err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if se.File != name || se.Line < 1 || se.Line > lines {
			t.Fatalf("format %q: error %q: file %q line %d of %d", format, err, se.File, se.Line, lines)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("format %q: error spans lines: %q", format, err)
		}
		return
	}
	if err := validSet(name, s); err != nil {
		t.Fatalf("format %q: %v", format, err)
	}
	if format != "" && s.Tool != "import "+format {
		t.Fatalf("format %q: tool %q", format, s.Tool)
	}
}

func FuzzImportPerfStat(f *testing.F) {
	addSeeds(f, "perf-stat*", "seed-001*")
	f.Add([]byte(" Performance counter stats for 'x' (3 runs):\n 1,000 msec task-clock # 1 CPUs ( +- 1.5% )\n 1 +- 2 seconds time elapsed\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{"perf-stat", "perf-stat-csv", "perf-stat-json"} {
			checkImport(t, data, format)
		}
	})
}

func FuzzImportPerfBench(f *testing.F) {
	addSeeds(f, "perf-bench*")
	f.Add([]byte("# Running 'syscall/basic' benchmark:\n 1 usecs/op\n 2 ops/sec\n Total time: 3 [sec]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "perf-bench")
	})
}

func FuzzImportStressNG(f *testing.F) {
	addSeeds(f, "stress-ng*")
	f.Add([]byte("stress-ng: metrc: [1] stressor bogo ops\nstress-ng: metrc: [1] k 1 2 3 4 5 6 7 8 9\nstress-ng: metrc: [1] k 5 x per sec (mean of 1 instances)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "stress-ng")
		checkImport(t, data, "stress-ng-yaml")
	})
}

func FuzzImportHackbench(f *testing.F) {
	addSeeds(f, "hackbench*")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "hackbench")
	})
}

func FuzzImportBenchfmt(f *testing.F) {
	addSeeds(f, "benchfmt*")
	f.Add([]byte("Unit x better=higher\nkey: v\nBenchmarkA/b=1/c-4 1 2 x 3 ns/op\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "benchfmt")
	})
}

func FuzzImportTable(f *testing.F) {
	addSeeds(f, "seed-002*")
	f.Add([]byte("# h\n+--+--+\n| Run | Mean (ms) | Min | Max |\n|---|---|---|---|\n| 1 | 5 us | 1 s | - |\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "table")
	})
}

func FuzzDetect(f *testing.F) {
	addSeeds(f, "*")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "")
	})
}

// FuzzImportTableShapes reads the shapes of pasted tables besides the
// Markdown run table (aligned with spaces, columns of variants, numbered
// lists, transposed statistics) through ImportSets: whatever the input,
// each variant is a valid set of its own, or the input is a *SyntaxError.
func FuzzImportTableShapes(f *testing.F) {
	addSeeds(f, "seed-000*", "seed-002-smt.txt", "seed-002-bridge*", "seed-002-per-call.txt")
	f.Add([]byte("Run  Mean(us)  Min(us)  Max(us)\n1  5  4  6\n2\t7\t3\t9\n"))
	f.Add([]byte("A | With (s) | Without (s) | Change\n———\nx | 1 | 2 | -50%\ny | - | 2 | baseline\n"))
	f.Add([]byte("1 - a: 5 s\n2 - b: 4 s (20% faster)\n\n1 2\nmedian: 1 2\nmax: 3us 4us\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "table")
		sets, err := ImportSets("fuzz/in.txt", data, "table")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, s := range sets {
			if err := validSet("fuzz/in.txt", s); err != nil {
				t.Fatal(err)
			}
			v := s.Labels[VariantParam]
			if seen[v] || len(sets) > 1 && v == "" && s != sets[0] {
				t.Fatalf("variant %q twice or out of place in %d sets", v, len(sets))
			}
			seen[v] = true
			for _, b := range s.Benchmarks {
				if _, ok := b.Params[VariantParam]; ok && len(sets) > 1 {
					t.Fatalf("%s: the variant is still a parameter", b.Key())
				}
			}
		}
	})
}

func FuzzImportSchbench(f *testing.F) {
	addSeeds(f, "schbench*")
	f.Add([]byte("RPS percentiles (requests) runtime 1 (s) (1 total samples)\n\t* 50.0th: 1 (1 samples)\n\t  min=1, max=1\naverage rps: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "schbench")
	})
}

func FuzzImportCyclictest(f *testing.F) {
	addSeeds(f, "cyclictest*")
	f.Add([]byte("# Min Latencies: 00001 00002\n# Avg Latencies: 00003 00004\n# Max Latencies: 00005\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, "cyclictest")
	})
}
