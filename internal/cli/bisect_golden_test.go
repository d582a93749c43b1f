package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/golden"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/workload"
)

// listValue prints, run after run, the lines of the file named by its
// argument in turn, cycling ("value 100", "value 101", ...): a measured
// workload whose figures are fixed, so that bisect-run's comparisons and
// decisions are too. The count of runs so far is kept beside the file.
const listValue = `n=$(cat "$1.n" 2>/dev/null || echo 0)
echo $((n+1)) > "$1.n"
len=$(wc -l < "$1")
echo "value $(sed -n "$((n % len + 1))p" "$1")"
`

// listSpec writes the list script and returns the spec of a command
// workload that runs it on dir/values, its metric value in direction
// better.
func listSpec(t *testing.T, dir, better string) string {
	t.Helper()
	script := filepath.Join(dir, "value.sh")
	if err := os.WriteFile(script, []byte(listValue), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`command:cmd='sh %s %s',regex=value (\d+),unit=us,better=%s`, script, filepath.Join(dir, "values"), better)
}

// listSet writes, as dir/name.json, a result set of spec whose metric
// value took the given values: a --good or --bad set made here, so that
// it is fixed.
func listSet(t *testing.T, dir, name, spec string, values ...float64) string {
	t.Helper()
	sp, err := workload.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values), Metrics: workload.MetricsOf(sp)}
	start := time.Date(2026, 7, 27, 9, 0, 0, 0, time.UTC)
	for i, v := range values {
		b.Runs = append(b.Runs, &result.Run{Index: i, Start: start.Add(time.Duration(i) * time.Second),
			Status: result.StatusOK, Values: map[string]float64{"wall": 0.01, "value": v}})
	}
	set := &result.Set{Schema: result.Schema, ID: "20260727T090000-" + name, Created: start, Tool: "kdelta test",
		Labels: map[string]string{"kernel": name}, Benchmarks: []*result.Benchmark{b}, Complete: true}
	path := filepath.Join(dir, name+".json")
	if err := result.Save(path, set); err != nil {
		t.Fatal(err)
	}
	return path
}

// decisionLines keeps, of bisect-run's stderr, the lines of its own: the
// judge's warnings (each names a benchmark, command:...) and the closing
// error. The others are the machine's (its load, whether it is
// virtualized), which differ from machine to machine.
func decisionLines(stderr string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "kdelta: bisect-run") || strings.HasPrefix(l, "kdelta: warning: command:") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestBisectRunGolden runs bisect-run on a workload whose figures are
// fixed lists, against good and bad sets made here, and checks its stdout
// and the decision lines of its stderr against testdata/bisect-*.stdout
// and .stderr, and its exit status.
func TestBisectRunGolden(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	lower, higher := listSpec(t, dir, "lower"), listSpec(t, dir, "higher")
	level := []float64{100, 101, 99, 100, 102, 98, 100, 101}
	twice := []float64{200, 202, 198, 200, 204, 196, 200, 202}
	good := listSet(t, dir, "good", lower, level...)
	bad := listSet(t, dir, "bad", lower, twice...)
	goodRate := listSet(t, dir, "good-rate", higher, level...)
	badRate := listSet(t, dir, "bad-rate", higher, scaledBy(0.5, level)...)
	other := listSet(t, dir, "other", strings.Replace(lower, "unit=us", "unit=ms", 1), level...)
	tests := []struct {
		name     string
		measured []float64 // the list the workload prints, in turn
		args     []string
		code     int
		// decision is the closing line's decision, checked apart from
		// the goldens so that -update cannot hide a wrong one.
		decision string
	}{
		{"like-good", []float64{100, 100, 101, 99, 100}, []string{"--workload", lower, "--good", good}, 0, "good"},
		{"slower", []float64{150, 152, 149, 151, 150}, []string{"--workload", lower, "--good", good}, 1, "bad"},
		{"faster", []float64{50, 51, 49, 50, 50}, []string{"--workload", lower, "--good", good}, 0, "good"},
		{"near-good", []float64{105, 106, 104, 105, 105}, []string{"--workload", lower, "--good", good, "--bad", bad}, 0, "good"},
		{"near-bad", []float64{190, 192, 189, 191, 190}, []string{"--workload", lower, "--good", good, "--bad", bad}, 1, "bad"},
		{"rate-near-bad", []float64{55, 56, 54, 55, 55}, []string{"--workload", higher, "--good", goodRate, "--bad", badRate}, 1, "bad"},
		{"bad-not-worse", []float64{100, 100, 101, 99, 100}, []string{"--workload", lower, "--good", good, "--bad", good}, 0, "good"},
		{"cannot-tell", []float64{50, 200, 80, 150, 100, 120, 60}, []string{"--workload", lower, "--good", good, "--max-runs", "10"}, 125, "skip"},
		{"parameters-differ", []float64{100, 100, 101, 99, 100}, []string{"--workload", lower, "--good", other}, 0, "good"},
		{"defaults-to-good", []float64{100, 100, 101, 99, 100}, []string{"--good", good}, 0, "good"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var list strings.Builder
			for _, v := range tt.measured {
				fmt.Fprintf(&list, "%g\n", v)
			}
			values := filepath.Join(dir, "values")
			os.Remove(values + ".n")
			if err := os.WriteFile(values, []byte(list.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			// The decisions over runs judged as independent
			// (--session-noise 0), as bisect-run judged them before
			// session noise: uncalibrated, the prior stands in.
			args := append([]string{"bisect-run", "--metric", "value", "--warmup", "0", "-r", "5", "--no-store", "--session-noise", "0"}, tt.args...)
			code, stdout, stderr := runKdelta(args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			if want := fmt.Sprintf("bisect-run: %s (exit %d)\n", tt.decision, tt.code); !strings.HasSuffix(stdout, want) {
				t.Errorf("stdout does not end in %q:\n%s", want, stdout)
			}
			// The bisect-run lines are the evidence; any other line on
			// stdout would be news.
			if other := regexp.MustCompile(`(?m)^[^b].*$`).FindString(stdout); other != "" {
				t.Errorf("stdout has a line of another kind: %q", other)
			}
			golden.Check(t, "bisect-"+tt.name+".stdout", []byte(strings.ReplaceAll(stdout, dir, "$DIR")))
			golden.Check(t, "bisect-"+tt.name+".stderr", []byte(strings.ReplaceAll(decisionLines(stderr), dir, "$DIR")))
		})
	}
}
