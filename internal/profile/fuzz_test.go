package profile

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// seedBytes bounds what a capture gives a fuzz corpus. The fuzzer mutates
// seeds whole and, each time a mutant reaches new code, minimises it by
// running the target on shorter and shorter copies, for up to
// -fuzzminimizetime (a minute by default) or a worker's share of
// -fuzztime's count. A whole 50 KB capture made each of those runs cost
// 50 KB of parsing: a minimisation took its whole minute and the 20000
// runs of CI's fuzz step took minutes at 0 execs/s. The head of a capture
// holds every kind of line the rest repeats.
const seedBytes = 4 << 10

// addSeeds adds the head of every testdata capture to f's corpus; go test
// also runs the entries in testdata/fuzz/FuzzXxx.
func addSeeds(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed captures testdata/%s (%v)", pattern, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(head(b, seedBytes))
	}
}

// head cuts b to at most n bytes: after the last blank line (the end of
// a perf script sample) within them, else after the last line.
func head(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	if i := bytes.LastIndex(b, []byte("\n\n")); i >= 0 {
		return b[:i+2]
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

func FuzzParseReport(f *testing.F) {
	addSeeds(f, "perf-report-*.txt")
	addSeeds(f, "seed004-*.txt")
	f.Add([]byte("> 15.23%  stress-ng  [kernel.kallsyms]  [k] \n> avc_lookup\n"))
	f.Add([]byte("# Children  Self  Symbol\n  10.00%  1.00%  [k] x\n            |\n            ---x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ParseReport("fuzz", b)
		if err != nil {
			return
		}
		for _, p := range ps {
			if len(p.Symbols) == 0 {
				t.Fatal("a profile without rows")
			}
			for _, s := range p.Symbols {
				if !(s.Overhead >= 0 && s.Overhead <= 100) || !(s.Children >= 0 && s.Children <= 100) || s.Samples < 0 {
					t.Fatalf("row out of range: %+v", s)
				}
				if p.CutOff > math.Max(s.Overhead, s.Children) {
					t.Fatalf("cut-off %v above a listed share %+v", p.CutOff, s)
				}
			}
			if p.Samples < 0 {
				t.Fatalf("samples %d", p.Samples)
			}
		}
	})
}

func FuzzParseScript(f *testing.F) {
	addSeeds(f, "perf-script-*.txt")
	f.Add([]byte("a 1 [000] 1.0: 1 cpu-clock:  ffff x+0x1 ([kernel.kallsyms])\n"))
	f.Add([]byte("a 1/2 1.0: 10 cycles:P: \n\tffff x ([kernel.kallsyms])\n\t1 y (/bin/y)\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseScript("fuzz", b)
		if err != nil {
			return
		}
		var leaves, stacked int64
		var share float64
		for _, s := range p.Symbols {
			leaves += s.Samples
			share += s.Overhead
		}
		for _, s := range p.Stacks {
			stacked += s.Samples
		}
		if leaves != p.Samples || p.Samples <= 0 {
			t.Fatalf("leaves %d, samples %d", leaves, p.Samples)
		}
		if math.Abs(share-100) > 1e-6 && !math.IsNaN(share) {
			t.Fatalf("shares add up to %v", share)
		}
		if p.CallGraph && stacked != p.Samples {
			t.Fatalf("stacks %d, samples %d", stacked, p.Samples)
		}
	})
}

// FuzzDecode feeds Decode, which picks the format, with anything; a
// profile it returns must export to pprof or say why not.
func FuzzDecode(f *testing.F) {
	addSeeds(f, "*.txt")
	f.Add([]byte(`{"schema":"kdelta/result/v1","benchmarks":[{"workload":"x","profiles":[{"symbols":[{"overhead":10,"symbol":"a"}]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= len(perfDataMagic) && string(b[:len(perfDataMagic)]) == string(perfDataMagic) {
			return // perf.data goes to perf itself
		}
		gs, err := Decode("fuzz", b)
		if err != nil {
			return
		}
		// One comparison per group: one per profile, each against the
		// whole group, would cost the square of the input.
		for _, g := range gs {
			for _, p := range g.Profiles {
				Pprof(p)
			}
			if _, err := Compare(Side{Profiles: g.Profiles[:1]}, Side{Profiles: g.Profiles}, "share"); err != nil {
				t.Fatal(err)
			}
		}
	})
}
