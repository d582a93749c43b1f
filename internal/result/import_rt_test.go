package result

import (
	"strings"
	"testing"
)

// TestImportSchbench reads schbench's percentile blocks: an interval
// report replaced by the final one of the same process, the old layout,
// and a new run when a block repeats without a longer runtime.
func TestImportSchbench(t *testing.T) {
	s := importFile(t, "schbench.txt", "")
	if s.Tool != "import schbench" {
		t.Fatalf("tool %q", s.Tool)
	}
	b := bench(t, s, "schbench")
	if len(b.Runs) != 1 {
		t.Fatalf("%d runs, want 1 (the 10 s report is replaced by the 30 s one)", len(b.Runs))
	}
	for _, tc := range []struct {
		metric string
		unit   string
		better Better
		want   float64
	}{
		{"wakeup-p50", "us", Lower, 9},
		{"wakeup-p99", "us", Lower, 23},
		{"wakeup-p99.9", "us", Lower, 61},
		{"request-p99", "us", Lower, 2908},
		{"rps-p20", "requests/s", Higher, 3404},
		{"rps-p50", "requests/s", Higher, 3412},
		{"average-rps", "requests/s", Higher, 3423.87},
	} {
		m := metric(t, b, tc.metric)
		if m.Unit != tc.unit || m.Better != tc.better {
			t.Errorf("%s: unit %q better %v", tc.metric, m.Unit, m.Better)
		}
		if got := b.Values(tc.metric); !equalFloats(got, []float64{tc.want}) {
			t.Errorf("%s = %v, want %v", tc.metric, got, tc.want)
		}
	}
	if got := b.Runs[0].Info["wakeup-samples"]; got != "1025370" {
		t.Errorf("wakeup samples %q", got)
	}

	old := importFile(t, "schbench-old.txt", "")
	ob := bench(t, old, "schbench")
	if got := ob.Values("latency-p99"); !equalFloats(got, []float64{87}) {
		t.Errorf("old layout p99 %v (metrics %v)", got, ob.Metrics)
	}

	// Two processes' final reports, one after the other: two runs.
	data := strings.Repeat("Wakeup Latencies percentiles (usec) runtime 30 (s) (100 total samples)\n\t* 99.0th: 20         (1 samples)\n\t  min=1, max=30\n", 2)
	two, err := Import("two.txt", []byte(data), "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(two.Benchmarks[0].Runs); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
}

func TestImportSchbenchErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"Wakeup Latencies percentiles (usec) runtime 30 (s) (1 total samples)\n\t  min=1, max=2\n", "x.txt:1: schbench block \"wakeup\" has no percentile lines"},
		{"Wakeup Latencies percentiles (usec)\n\t  50.0th: 9,75\n", "x.txt:2: bad number \"9,75\""},
	} {
		_, err := Import("x.txt", []byte(tc.in), "schbench")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestImportCyclictest reads cyclictest's captured output: a thread a
// benchmark, two processes' lines two runs, the histogram's summary, and
// the unit it cannot see said.
func TestImportCyclictest(t *testing.T) {
	s := importFile(t, "cyclictest-t2-q.txt", "")
	if s.Tool != "import cyclictest" || len(s.Benchmarks) != 2 {
		t.Fatalf("tool %q, %d benchmarks", s.Tool, len(s.Benchmarks))
	}
	b0, b1 := s.Benchmarks[0], s.Benchmarks[1]
	if got := FormatParams(b0.Params); got != "interval=1000,prio=98,thread=0" {
		t.Errorf("params %s", got)
	}
	if got := FormatParams(b1.Params); got != "interval=1500,prio=98,thread=1" {
		t.Errorf("params %s", got)
	}
	if !equalFloats(b0.Values("max"), []float64{15415}) || !equalFloats(b1.Values("avg"), []float64{95}) || !equalFloats(b1.Values("min"), []float64{26}) {
		t.Errorf("values %v %v %v", b0.Values("max"), b1.Values("avg"), b1.Values("min"))
	}
	if m := metric(t, b0, "max"); m.Unit != "us" || m.Better != Lower {
		t.Errorf("max %+v", m)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "read as microseconds") {
		t.Errorf("warnings %q", s.Warnings)
	}

	x2 := importFile(t, "cyclictest-t1-x2.txt", "")
	if got := x2.Benchmarks[0].Values("max"); len(x2.Benchmarks) != 1 || !equalFloats(got, []float64{567, 837}) {
		t.Errorf("two processes: max %v", got)
	}

	h := importFile(t, "cyclictest-t2-hist.txt", "")
	if len(h.Benchmarks) != 2 || !equalFloats(h.Benchmarks[0].Values("max"), []float64{7284}) || !equalFloats(h.Benchmarks[1].Values("avg"), []float64{55}) {
		t.Errorf("histogram summary: %d benchmarks", len(h.Benchmarks))
	}

	// A terminal's rewrites of one thread: the later state replaces it.
	live := "T: 0 ( 100) P:98 I:1000 C:    500 Min:      2 Act:    3 Avg:    3 Max:      9\n" +
		"T: 0 ( 100) P:98 I:1000 C:   1000 Min:      2 Act:    3 Avg:    4 Max:     19\n"
	ls, err := Import("live.txt", []byte(live), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ls.Benchmarks[0].Values("max"); !equalFloats(got, []float64{19}) {
		t.Errorf("rewritten line: max %v", got)
	}

	_, err = Import("bad.txt", []byte("T: 0 ( 100) P:98 I:1000 C: 5 Min: x\n"), "cyclictest")
	if err == nil || !strings.HasPrefix(err.Error(), "bad.txt:1: cyclictest thread line not in its layout") {
		t.Errorf("error %v", err)
	}
}
