package report

import (
	"bytes"
	"fmt"
	"html"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/history"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestHistoryEmulated: a history whose later builds were measured under
// TCG says so where its verdicts are, in every format a reader reads: the
// step beside an emulated build carries the caveat after its verdict,
// and a line under the table names the emulated builds; a history of
// native sets says nothing of TCG.
func TestHistoryEmulated(t *testing.T) {
	const tcg = "timings emulated under TCG (qemu without KVM): compare them only with other TCG results; they do not measure the hardware"
	m := result.Metric{Name: "ns/call", Unit: "ns", Better: result.Lower}
	mk := func(i int, kernel string, centre float64, emulated bool) *result.Set {
		rng := mrand.New(mrand.NewPCG(uint64(i+1), 7))
		b := &result.Benchmark{Workload: "syscall", Metrics: []result.Metric{m}}
		for r := range 10 {
			b.Runs = append(b.Runs, &result.Run{Index: r, Status: result.StatusOK, Values: map[string]float64{m.Name: centre * (1 + 0.01*rng.NormFloat64())}})
		}
		s := &result.Set{Schema: result.Schema, ID: fmt.Sprintf("s%d", i), Created: time.Date(2026, 12, 6, i, 0, 0, 0, time.UTC),
			Labels: map[string]string{"kernel": kernel}, Benchmarks: []*result.Benchmark{b}, Complete: true}
		if emulated {
			s.Warnings = []string{tcg}
		}
		return s
	}
	for _, tt := range []struct {
		name     string
		emulated [3]bool
		note     string
	}{
		{"later builds", [3]bool{false, true, true}, "kernel 6.16, 6.17: " + EmulatedText},
		{"every build", [3]bool{true, true, true}, "every kernel: " + EmulatedText},
		{"native", [3]bool{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sets := []*result.Set{mk(0, "6.15", 100, tt.emulated[0]), mk(1, "6.16", 150, tt.emulated[1]), mk(2, "6.17", 150, tt.emulated[2])}
			hs, err := history.FromSets(sets, history.Query{By: "kernel", Workload: "syscall", ChangePoints: stats.DefaultChangePointOptions()})
			if err != nil || len(hs) != 1 || len(hs[0].Steps) != 1 {
				t.Fatalf("history: %v; want one series with a step", err)
			}
			for _, format := range []string{"text", "markdown", "json", HTMLFormat} {
				var b bytes.Buffer
				if err := WriteHistory(&b, hs, stats.DefaultChangePointOptions(), format); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				if tt.note == "" {
					if strings.Contains(out, "TCG") || strings.Contains(out, `"emulated"`) {
						t.Errorf("%s: a native history speaks of TCG:\n%s", format, out)
					}
					continue
				}
				switch format {
				case "json":
					if n := strings.Count(out, `"emulated": true`); n != strings.Count(fmt.Sprint(tt.emulated), "true") {
						t.Errorf("json: %d points emulated, want those of %v:\n%s", n, tt.emulated, out)
					}
				default:
					note, step := tt.note, "step ("+PValue(hs[0].Steps[0].P)+") regressed, "+EmulatedText
					if format == HTMLFormat {
						note, step = html.EscapeString(note), html.EscapeString(step)
					}
					if !strings.Contains(out, note) {
						t.Errorf("%s: no line %q:\n%s", format, note, out)
					}
					if !strings.Contains(out, step) {
						t.Errorf("%s: the step's verdict without its caveat, want %q:\n%s", format, step, out)
					}
				}
			}
		})
	}
}
