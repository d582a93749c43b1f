package profile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The benchmarks below feed the parsers of outside input generated text of
// growing size in each of several shapes. A parser that is linear in its
// input keeps its ns/B (nanoseconds per input byte, reported beside ns/op)
// about flat from one size of a shape to the next; one that grows with the
// size is super-linear, which is a bug: perf script output of a long
// recording runs to hundreds of megabytes, and a fuzzer's worker stalls on
// such an input.

// scriptShapes are generated perf script outputs, by shape and size.
var scriptShapes = []struct {
	shape string
	sizes []int
	gen   func(n int) []byte
}{
	// n samples of 4 to 20 frames from a few hundred functions: what a
	// recording with -g looks like.
	{"samples", []int{1_000, 10_000, 100_000}, func(n int) []byte { return genScript(n, 4, 20) }},
	// n samples, each with its own stack of 64 frames that differ only at
	// the root, so the stacks share long prefixes.
	{"distinct-stacks", []int{1_000, 10_000, 100_000}, genDistinctStacks},
	// One sample of n frames.
	{"deep-stack", []int{1_000, 10_000, 100_000}, genDeepStack},
	// One sample whose header line and frame are n bytes long.
	{"huge-line", []int{10_000, 100_000, 1_000_000}, genHugeLine},
	// One sample with frames, then n headers without any (samples perf
	// could not unwind).
	{"headers-without-frames", []int{1_000, 10_000, 100_000}, genHeadersOnly},
	// n samples of n different events: all but the first are counted
	// in a warning.
	{"many-events", []int{1_000, 10_000, 100_000}, genManyEvents},
}

func BenchmarkParseScript(b *testing.B) {
	for _, s := range scriptShapes {
		for _, n := range s.sizes {
			data := s.gen(n)
			b.Run(fmt.Sprintf("%s/%d", s.shape, n), func(b *testing.B) {
				benchParse(b, data, func(d []byte) error {
					_, err := ParseScript("bench", d)
					return err
				})
			})
		}
	}
}

// reportShapes are generated perf report --stdio texts, by shape and size.
var reportShapes = []struct {
	shape string
	sizes []int
	gen   func(n int) []byte
}{
	// n rows under perf's usual header.
	{"rows", []int{1_000, 10_000, 100_000}, genReportRows},
	// A header of n columns, then n rows.
	{"wide-header", []int{1_000, 3_000, 10_000}, genWideHeader},
	// n tables of one row each.
	{"tables", []int{1_000, 10_000, 100_000}, genReportTables},
	// One row n bytes long.
	{"huge-line", []int{10_000, 100_000, 1_000_000}, genReportHugeLine},
}

func BenchmarkParseReport(b *testing.B) {
	for _, s := range reportShapes {
		for _, n := range s.sizes {
			data := s.gen(n)
			b.Run(fmt.Sprintf("%s/%d", s.shape, n), func(b *testing.B) {
				benchParse(b, data, func(d []byte) error {
					_, err := ParseReport("bench", d)
					return err
				})
			})
		}
	}
}

// benchParse runs parse on data b.N times and reports ns per input byte.
func benchParse(b *testing.B, data []byte, parse func([]byte) error) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := parse(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns/B")
}

// scriptSyms is a pool of functions in perf script's spelling.
var scriptSyms = func() []string {
	var s []string
	for i := range 300 {
		switch i % 3 {
		case 0:
			s = append(s, fmt.Sprintf("ffffffff81%06x kfunc_%d+0x%x ([kernel.kallsyms])", i*64, i, i%97))
		case 1:
			s = append(s, fmt.Sprintf("7f00000%05x libfunc_%d+0x%x (/usr/lib/x86_64-linux-gnu/libc.so.6)", i*16, i, i%31))
		default:
			s = append(s, fmt.Sprintf("%x github.com/kdelta/kdelta/internal/workload.(*loop%d).Run+0x%x (/tmp/kdelta)", 0x400000+i*32, i, i%13))
		}
	}
	return s
}()

func writeHeader(w *bytes.Buffer, i int, event string) {
	comm := [...]string{"stress-ng", "kdelta", "perf", "kworker/0:1"}[i%4]
	fmt.Fprintf(w, "%15s %6d [%03d] %6d.%06d: %10d %s: \n", comm, 4000+i%50, i%2, 4000+i/1000, i%1000*1000, 250000, event)
}

func genScript(n, minDepth, maxDepth int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var w bytes.Buffer
	for i := range n {
		writeHeader(&w, i, "cpu-clock")
		for range minDepth + r.IntN(maxDepth-minDepth+1) {
			w.WriteString("\t")
			w.WriteString(scriptSyms[r.IntN(len(scriptSyms))])
			w.WriteString("\n")
		}
		w.WriteString("\n")
	}
	return w.Bytes()
}

func genDistinctStacks(n int) []byte {
	var w bytes.Buffer
	for i := range n {
		writeHeader(&w, i, "cpu-clock")
		for d := range 63 {
			fmt.Fprintf(&w, "\t%s\n", scriptSyms[d])
		}
		fmt.Fprintf(&w, "\t%x root_%d (/tmp/kdelta)\n\n", 0x400000+i, i)
	}
	return w.Bytes()
}

func genDeepStack(n int) []byte {
	var w bytes.Buffer
	writeHeader(&w, 0, "cpu-clock")
	for d := range n {
		fmt.Fprintf(&w, "\t%s\n", scriptSyms[d%len(scriptSyms)])
	}
	w.WriteString("\n")
	return w.Bytes()
}

func genHugeLine(n int) []byte {
	long := strings.Repeat("x", n/2)
	return fmt.Appendf(nil, "%s 1 [000] 1.0: 1 cpu-clock:  ffff %s+0x1 ([kernel.kallsyms])\n\tffff %s (/bin/%s)\n", long, long, long, long)
}

func genHeadersOnly(n int) []byte {
	var w bytes.Buffer
	writeHeader(&w, 0, "cpu-clock")
	w.WriteString("\t" + scriptSyms[0] + "\n\t" + scriptSyms[1] + "\n\n")
	for i := range n {
		writeHeader(&w, i, "cpu-clock")
	}
	return w.Bytes()
}

func genManyEvents(n int) []byte {
	var w bytes.Buffer
	for i := range n {
		writeHeader(&w, i, fmt.Sprintf("event%d", i))
		w.WriteString("\t" + scriptSyms[i%len(scriptSyms)] + "\n\n")
	}
	return w.Bytes()
}

func genReportRows(n int) []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Samples: %d  of event 'cpu-clock'\n#\n# Overhead  Samples  Command          Shared Object      Symbol\n# ........  .......  ...............  .................  ......\n#\n", n)
	for i := range n {
		fmt.Fprintf(&w, "     0.01%%        1  stress-ng        [kernel.kallsyms]  [k] kfunc_%d\n", i)
	}
	return w.Bytes()
}

func genWideHeader(n int) []byte {
	var w bytes.Buffer
	w.WriteString("# Overhead")
	for range n {
		w.WriteString("  Command")
	}
	w.WriteString("  Symbol\n")
	for i := range n {
		fmt.Fprintf(&w, "     0.01%%  c  [k] kfunc_%d\n", i)
	}
	return w.Bytes()
}

func genReportTables(n int) []byte {
	var w bytes.Buffer
	for i := range n {
		fmt.Fprintf(&w, "# Samples: 1  of event 'cpu-clock'\n     100.00%%  stress-ng  [kernel.kallsyms]  [k] kfunc_%d\n", i)
	}
	return w.Bytes()
}

func genReportHugeLine(n int) []byte {
	return fmt.Appendf(nil, "# Overhead  Command  Shared Object  Symbol\n    12.00%%  %s  [kernel.kallsyms]  [k] %s\n", strings.Repeat("c", n/2), strings.Repeat("s", n/2))
}
