package profile

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// addSeeds adds every testdata capture to f's corpus; go test also runs
// the entries in testdata/fuzz/FuzzXxx.
func addSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
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
		for _, g := range gs {
			for _, p := range g.Profiles {
				Pprof(p)
				Compare(Side{Profiles: []*result.Profile{p}}, Side{Profiles: g.Profiles}, "share")
			}
		}
	})
}
