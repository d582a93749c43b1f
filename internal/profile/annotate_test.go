package profile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// setSource serves result sets by name, as the store does by id.
func setSource(sets map[string]*result.Set) Source {
	return func(ref string) (*result.Set, error) {
		if s, ok := sets[ref]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("%s: no such result set", ref)
	}
}

// hottestKernel returns the kernel symbol with most samples in p's table
// (its rows by command summed) and those samples.
func hottestKernel(p *result.Profile) (string, int64) {
	by := map[string]int64{}
	for _, s := range p.Symbols {
		if s.Kernel {
			by[s.Symbol] += s.Samples
		}
	}
	best, n := "", int64(0)
	for s, v := range by {
		if v > n || v == n && s < best {
			best, n = s, v
		}
	}
	return best, n
}

// TestAnnotateSyscall is acceptance 1 and 2 at the package's level: two
// real profiles of the syscall workload; the hottest kernel symbol of the
// first annotated from what the set kept, its instructions' shares adding
// up to 100% and their samples to the symbol's samples in perf report's
// table (counted apart, by perf script); then the two lined up.
func TestAnnotateSyscall(t *testing.T) {
	// With call stacks: the samples by offset count each sample once,
	// not once per frame of its stack.
	o := Options{CallGraph: true}
	needPerf(t, o)
	// One measured run and two profiled runs, each profile a set of its
	// own, as two kdelta run --profile would make.
	both := measure(t, o, 1, 2, "syscall:calls=1000000")
	split := func(i int) *result.Set {
		s := *both
		bm := *both.Benchmarks[0]
		bm.Profiles = bm.Profiles[i : i+1]
		s.Benchmarks = []*result.Benchmark{&bm}
		return &s
	}
	a, b := split(0), split(1)
	src := setSource(map[string]*result.Set{"A": a, "B": b})
	pa := &a.Benchmarks[0].Profiles[0]
	if pa.Unavailable != "" || !pa.Annotated || len(pa.Annotations) == 0 {
		t.Fatalf("profile: unavailable %q, annotated %v, %d annotations", pa.Unavailable, pa.Annotated, len(pa.Annotations))
	}
	sym, samples := hottestKernel(pa)
	an, err := Annotate(context.Background(), "A", sym, AnnotateOptions{}, src)
	if err != nil {
		t.Fatal(err)
	}
	var pct float64
	var n int64
	insns := 0
	for _, l := range an.Lines {
		if !l.Source {
			pct += l.Percent
			n += l.Samples
			insns++
		}
	}
	if math.Abs(pct-100) > 1 || insns == 0 {
		t.Errorf("%s: %d instructions whose shares add up to %.2f%%, want 100%% ± 1", sym, insns, pct)
	}
	if math.Abs(float64(n-samples)) > 0.01*float64(samples) || an.Samples != n {
		t.Errorf("%s: instructions hold %d samples (annotation %d), perf report's table %d", sym, n, an.Samples, samples)
	}
	t.Logf("%s: %d samples on %d instructions, shares %.2f%%, lines from %s %s", sym, n, insns, pct, an.Source, an.NoText)

	bn, err := Annotate(context.Background(), "B", sym, AnnotateOptions{}, src)
	if err != nil {
		t.Fatalf("B: %v", err)
	}
	changes := DiffAnnotations(an, bn)
	if len(changes) == 0 {
		t.Fatal("no lines in the diff")
	}
	var sumA, sumB float64
	for i, c := range changes {
		if i > 0 && math.Abs(c.Delta()) > math.Abs(changes[i-1].Delta())+1e-9 {
			t.Errorf("line %d (Δ %+.2f) ranked after one of Δ %+.2f", i, c.Delta(), changes[i-1].Delta())
		}
		if c.InA && c.InB && c.OffsetA >= 0 && c.OffsetB >= 0 && c.Text == "" && c.OffsetA != c.OffsetB {
			t.Errorf("offsets %d and %d lined up without text", c.OffsetA, c.OffsetB)
		}
		if !c.Total {
			sumA += c.PercentA
			sumB += c.PercentB
		}
	}
	// The same kernel on both sides: each side's lines keep all of its
	// share, and the hottest offset of A is lined up with B's.
	if math.Abs(sumA-100) > 1 || math.Abs(sumB-100) > 1 {
		t.Errorf("lined-up shares add up to %.2f%% and %.2f%%", sumA, sumB)
	}
	hot := changes[0]
	for _, c := range changes {
		if c.PercentA > hot.PercentA {
			hot = c
		}
	}
	if !hot.InB || hot.OffsetB != hot.OffsetA {
		t.Errorf("A's hottest line %+v is not lined up with B's", hot)
	}
}

// TestAnnotateErrors: a symbol that is not in the profile is named with
// the nearest names there are; a set recorded before annotations says
// so.
func TestAnnotateErrors(t *testing.T) {
	prof := result.Profile{Annotated: true, Samples: 10,
		Symbols: []result.ProfileSymbol{
			{Symbol: "do_syscall_64", Samples: 6, Kernel: true},
			{Symbol: "__task_pid_nr_ns", Samples: 3, Kernel: true},
			{Symbol: "x64_sys_call", Samples: 1, Kernel: true},
		},
		Annotations: []result.ProfileAnnotation{{Symbol: "do_syscall_64", Samples: 6, Source: "perf script",
			Lines: []result.AnnotatedLine{{Offset: 0x46, Samples: 6, Percent: 100}}}},
	}
	prof.Source = "perf record"
	old := prof
	old.Annotated, old.Annotations = false, nil
	set := func(p result.Profile) *result.Set {
		return &result.Set{Benchmarks: []*result.Benchmark{{Workload: "syscall", Profiles: []result.Profile{p}}}}
	}
	src := setSource(map[string]*result.Set{"new": set(prof), "old": set(old)})
	_, err := Annotate(context.Background(), "new", "do_sycall_64", AnnotateOptions{}, src)
	if err == nil || !strings.Contains(err.Error(), "no symbol do_sycall_64") || !strings.Contains(err.Error(), "nearest: do_syscall_64") {
		t.Errorf("misspelt symbol: %v", err)
	}
	_, err = Annotate(context.Background(), "new", "x64_sys_call", AnnotateOptions{}, src)
	if err == nil || !strings.Contains(err.Error(), "not among the hottest") {
		t.Errorf("a symbol not annotated: %v", err)
	}
	if _, err = Annotate(context.Background(), "old", "do_syscall_64", AnnotateOptions{}, src); !errors.Is(err, ErrNotAnnotated) {
		t.Errorf("a set recorded before annotations: %v", err)
	}
	if _, err := Annotate(context.Background(), filepath.Join("testdata", "seed004-before.txt"), "do_syscall_64", AnnotateOptions{}, src); err == nil || !strings.Contains(err.Error(), "perf report or perf script table has no instructions") {
		t.Errorf("a perf report table: %v", err)
	}
	mail := filepath.Join("testdata", "annotate-tui-seed003.txt")
	if _, err := Annotate(context.Background(), mail, "mm_cid_get", AnnotateOptions{}, src); err == nil || !strings.Contains(err.Error(), "do not name their symbols") {
		t.Errorf("the seed 003 mail's two unnamed annotations: %v", err)
	}
	if a, err := Annotate(context.Background(), filepath.Join("testdata", "annotate-go.txt"), "golang.org/x/sys/unix.RawSyscallNoError.abi0", AnnotateOptions{}, src); err != nil || a.Samples == 0 {
		t.Errorf("perf annotate --stdio text: %+v, %v", a, err)
	}
	if a, err := Annotate(context.Background(), "new", "do_syscall_64", AnnotateOptions{}, src); err != nil || a.Samples != 6 || a.Benchmark != "syscall" {
		t.Errorf("do_syscall_64: %+v, %v", a, err)
	}
	if a, err := AnnotateSet("new", set(prof), "do_syscall_64", AnnotateOptions{Only: "sys"}); err != nil || a.Samples != 6 {
		t.Errorf("AnnotateSet: %+v, %v", a, err)
	}
	if _, err := AnnotateSet("new", set(prof), "do_syscall_64", AnnotateOptions{Only: "messaging"}); err == nil {
		t.Error("AnnotateSet found a symbol in a benchmark --workload leaves out")
	}
}

// TestAnnotateNoPerf: a perf.data without perf to read it says to install
// it.
func TestAnnotateNoPerf(t *testing.T) {
	data := filepath.Join(t.TempDir(), "perf.data")
	if err := os.WriteFile(data, append([]byte("PERFILE2"), make([]byte, 64)...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Annotate(context.Background(), data, "do_syscall_64", AnnotateOptions{Perf: "/nonexistent/perf"}, setSource(nil))
	if err == nil || !strings.Contains(err.Error(), "install linux-perf") {
		t.Errorf("no perf: %v", err)
	}
}
