package result

import (
	"strings"
	"testing"
)

func TestImportBenchfmt(t *testing.T) {
	s := importFile(t, "benchfmt.txt", "")
	if s.Tool != "import benchfmt" {
		t.Errorf("tool %q", s.Tool)
	}
	for k, v := range map[string]string{"goos": "linux", "goarch": "amd64", "pkg": "example.com/kdbench", "cpu": "Intel(R) Xeon(R) Processor"} {
		if s.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, s.Labels[k], v)
		}
	}
	var keys []string
	for _, b := range s.Benchmarks {
		keys = append(keys, b.Key())
	}
	if want := "Getppid:gomaxprocs=2 Pipe:gomaxprocs=2,size=1 Pipe:gomaxprocs=2,size=4096"; strings.Join(keys, " ") != want {
		t.Errorf("benchmarks %v, want %s", keys, want)
	}
	g := s.Benchmarks[0]
	if got := g.Values("ns/op"); !equalFloats(got, []float64{170.8, 170.3, 166.5}) {
		t.Errorf("Getppid ns/op %v", got)
	}
	if g.Runs[0].Ops != 100 {
		t.Errorf("ops %v, want the iteration count 100", g.Runs[0].Ops)
	}
	p := s.Benchmarks[2]
	want := map[string][]float64{
		"ns/op":     {1618, 2615, 2941},
		"MB/s":      {2531.91, 1566.63, 1392.69},
		"B/op":      {43, 43, 43},
		"allocs/op": {0, 0, 0},
	}
	for unit, v := range want {
		if got := p.Values(unit); !equalFloats(got, v) {
			t.Errorf("size=4096 %s = %v, want %v", unit, got, v)
		}
	}
	dirs := map[string]Better{"ns/op": Lower, "MB/s": Higher, "B/op": Lower, "allocs/op": Lower}
	for _, m := range p.Metrics {
		if m.Unit != m.Name || m.Better != dirs[m.Name] {
			t.Errorf("metric %+v", m)
		}
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// TestImportBenchfmtConfig checks that configuration that changes between
// results becomes parameters, that unit metadata gives directions, that
// positional sub-benchmark names are parameters, and that a unit of
// unknown direction is a warning.
func TestImportBenchfmtConfig(t *testing.T) {
	in := `goos: linux
kernel: 6.16
Unit widgets better=higher
BenchmarkA/fast-8 10 5 ns/op 7 widgets 3 frobs
kernel: 6.17
BenchmarkA/fast-8 10 6 ns/op 8 widgets 4 frobs
`
	s, err := Import("k.txt", []byte(in), "benchfmt")
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, "k.txt", s)
	if s.Labels["goos"] != "linux" || s.Labels["kernel"] != "" {
		t.Errorf("labels %v", s.Labels)
	}
	var keys []string
	for _, b := range s.Benchmarks {
		keys = append(keys, b.Key())
	}
	if want := "A:gomaxprocs=8,kernel=6.16,sub1=fast A:gomaxprocs=8,kernel=6.17,sub1=fast"; strings.Join(keys, " ") != want {
		t.Errorf("benchmarks %v, want %s", keys, want)
	}
	b := s.Benchmarks[1]
	if metric(t, b, "widgets").Better != Higher || metric(t, b, "frobs").Better != Lower || b.Runs[0].Values["widgets"] != 8 {
		t.Errorf("metrics %+v values %v", b.Metrics, b.Runs[0].Values)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "k.txt:4: benchfmt: unit frobs has no known direction") {
		t.Errorf("warnings %q", s.Warnings)
	}
}
