package result

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportTableSeed002 reads the two tables of seed mail 002 and checks
// the figures the mail's summary states: mean latency 9.75 ms -> 6.04 ms
// (38% improvement), max latency 25.72 ms -> 10.25 ms (60%).
func TestImportTableSeed002(t *testing.T) {
	type side struct {
		file, title string
		run1        [3]float64 // mean, min, max of run 1
		meanOfMeans float64
		maxOfMax    float64
	}
	sides := []side{
		{"seed-002-baseline.md", "Baseline (without fix)", [3]float64{10.088, 9.989, 18.848}, 9.75, 25.723},
		{"seed-002-with-fix.md", "With fix", [3]float64{6.027, 5.915, 8.589}, 6.04, 10.250},
	}
	var means, maxes [2]float64
	for i, sd := range sides {
		s := importFile(t, sd.file, "")
		if s.Tool != "import table" || s.Labels["title"] != sd.title {
			t.Errorf("%s: tool %q labels %v", sd.file, s.Tool, s.Labels)
		}
		b := bench(t, s, "table")
		if len(b.Params) != 0 || len(b.Runs) != 10 {
			t.Fatalf("%s: params %v, %d runs; want none and 10", sd.file, b.Params, len(b.Runs))
		}
		for _, name := range []string{"mean", "min", "max"} {
			if m := metric(t, b, name); m.Unit != "ms" || m.Better != Lower {
				t.Errorf("%s: metric %+v", sd.file, m)
			}
		}
		r := b.Runs[0]
		if r.Values["mean"] != sd.run1[0] || r.Values["min"] != sd.run1[1] || r.Values["max"] != sd.run1[2] || r.Info["run"] != "1" {
			t.Errorf("%s: run 1 %v %v", sd.file, r.Values, r.Info)
		}
		l := r.Latency
		if l == nil || l.Unit != "ms" || l.Mean != sd.run1[0] || l.Min != sd.run1[1] || l.Max != sd.run1[2] || l.Count != 0 {
			t.Errorf("%s: latency %+v", sd.file, l)
		}
		// A table has none of a run's own figures, nor percentiles.
		if r.Lacks != FigAll || l != nil && (l.P50 != 0 || l.P99 != 0) {
			t.Errorf("%s: run 1 lacks %07b, latency %+v; want every figure lacking", sd.file, r.Lacks, l)
		}
		if b.Runs[9].Info["run"] != "10" {
			t.Errorf("%s: last run %v", sd.file, b.Runs[9].Info)
		}
		sum := 0.0
		for _, v := range b.Values("mean") {
			sum += v
		}
		means[i] = sum / 10
		for _, v := range b.Values("max") {
			maxes[i] = math.Max(maxes[i], v)
		}
		if math.Round(means[i]*100)/100 != sd.meanOfMeans || maxes[i] != sd.maxOfMax {
			t.Errorf("%s: mean of means %v, max %v; the mail says %v and %v", sd.file, means[i], maxes[i], sd.meanOfMeans, sd.maxOfMax)
		}
	}
	if imp := math.Round(100 * (1 - means[1]/means[0])); imp != 38 {
		t.Errorf("mean improvement %v%%, the mail says 38%%", imp)
	}
	if imp := math.Round(100 * (1 - maxes[1]/maxes[0])); imp != 60 {
		t.Errorf("max improvement %v%%, the mail says 60%%", imp)
	}
}

// TestImportTableQuoted reads the baseline table as a reply quotes it.
func TestImportTableQuoted(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(importDir, "seed-002-baseline.md"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := ">> " + strings.ReplaceAll(strings.TrimSuffix(string(data), "\n"), "\n", "\n>> ") + "\n>>\n>> Summary:\n"
	s, err := Import("reply.txt", []byte(quoted), "")
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, "reply.txt", s)
	b := bench(t, s, "table")
	if len(b.Runs) != 10 || b.Runs[4].Values["mean"] != 8.695 || s.Labels["title"] != "Baseline (without fix)" {
		t.Errorf("%d runs, run 5 %v, labels %v", len(b.Runs), b.Runs[4].Values, s.Labels)
	}
}

func TestImportTableShapes(t *testing.T) {
	t.Run("ascii borders, heading, mixed time units", func(t *testing.T) {
		in := `## rcu latency

+-----+---------+--------+---------+--------+
| Run | Mean    | Min    | Max     | P99    |
+-----+---------+--------+---------+--------+
| 1   | 0.95 ms | 900 us | 2 ms    | 1.5 ms |
| 2   | 1250 us | 1 ms   | 3000 us | 2 ms   |
+-----+---------+--------+---------+--------+
`
		s, err := Import("a.txt", []byte(in), "")
		if err != nil {
			t.Fatal(err)
		}
		checkSet(t, "a.txt", s)
		b := bench(t, s, "rcu-latency")
		if _, ok := s.Labels["title"]; ok {
			t.Errorf("labels %v: a Markdown heading names the workload", s.Labels)
		}
		if got := b.Values("mean"); !equalFloats(got, []float64{0.95, 1.25}) {
			t.Errorf("mean %v, want [0.95 1.25] ms", got)
		}
		if got := b.Values("min"); !equalFloats(got, []float64{900, 1000}) {
			t.Errorf("min %v, want [900 1000] us", got)
		}
		if l := b.Runs[1].Latency; l == nil || l.P99 != 2 || l.Unit != "ms" || l.Mean != 1.25 || l.Min != 1 || l.Max != 3 {
			t.Errorf("latency %+v", l)
		}
	})
	t.Run("two tables, header units, thousands", func(t *testing.T) {
		in := `| Kernel | Throughput (ops/s) |
|--------|--------------------|
| 6.15   | 103,207            |

text between

| Kernel | Throughput (ops/s) |
|--------|--------------------|
| 6.16   | 70,281             |
`
		s, err := Import("b.txt", []byte(in), "table")
		if err != nil {
			t.Fatal(err)
		}
		checkSet(t, "b.txt", s)
		var keys []string
		for _, b := range s.Benchmarks {
			keys = append(keys, b.Key())
		}
		if want := "table:kernel=6.15,table=1 table:kernel=6.16,table=text between"; strings.Join(keys, " ") != want {
			t.Errorf("benchmarks %v, want %s", keys, want)
		}
		m := metric(t, s.Benchmarks[0], "throughput")
		if m.Unit != "ops/s" || m.Better != Higher || s.Benchmarks[0].Runs[0].Values["throughput"] != 103207 {
			t.Errorf("metric %+v values %v", m, s.Benchmarks[0].Runs[0].Values)
		}
	})
	t.Run("missing cells and unknown direction", func(t *testing.T) {
		in := "| Run | Widgets |\n|---|---|\n| 1 | 5 |\n| 2 | - |\n| 3 | 7 |\n"
		s, err := Import("c.txt", []byte(in), "")
		if err != nil {
			t.Fatal(err)
		}
		b := bench(t, s, "table")
		if got := b.Values("widgets"); !equalFloats(got, []float64{5, 7}) || len(b.Runs) != 3 {
			t.Errorf("widgets %v over %d runs", got, len(b.Runs))
		}
		if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `c.txt:1: table: column "Widgets" has no known direction`) {
			t.Errorf("warnings %q", s.Warnings)
		}
	})
}
