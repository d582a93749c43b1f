package cli_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/result"
)

var update = flag.Bool("update", false, "rewrite golden files")

func needPerfRoot(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf (linux-perf) not installed: skipped")
	}
	if os.Geteuid() != 0 {
		t.Skip("tracepoint raw_syscalls:sys_enter needs root: skipped")
	}
}

// TestStatMatchesPerf counts the same nearly deterministic command with
// perf stat and kdelta stat: each count must agree within 5%.
func TestStatMatchesPerf(t *testing.T) {
	needPerfRoot(t)
	events := "context-switches,raw_syscalls:sys_enter"
	argv := []string{"perf", "bench", "sched", "pipe", "-l", "10000"}
	out, err := exec.Command("perf", append([]string{"stat", "-x,", "-e", events, "--"}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("perf stat: %v\n%s", err, out)
	}
	ref := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, ",")
		if len(f) > 2 {
			if v, err := strconv.ParseFloat(f[0], 64); err == nil {
				ref[f[2]] = v
			}
		}
	}
	path := filepath.Join(t.TempDir(), "s.json")
	var stdout, stderr bytes.Buffer
	args := append([]string{"stat", "-e", events, "-o", path, "--"}, argv...)
	if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("kdelta stat: exit %d: %s", code, stderr.String())
	}
	s, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, c := range s.Benchmarks[0].Runs[0].Counters {
		got[c.Name] = c.Value
	}
	for _, ev := range strings.Split(events, ",") {
		r, k := ref[ev], got[ev]
		t.Logf("%s: perf %.0f, kdelta %.0f", ev, r, k)
		if r == 0 || k/r < 0.95 || k/r > 1.05 {
			t.Errorf("%s: perf stat counted %.0f, kdelta stat %.0f: more than 5%% apart", ev, r, k)
		}
	}
}

var number = regexp.MustCompile(`[0-9][0-9,.]*`)

// TestStatShape checks that kdelta stat's output has perf stat's shape;
// the numbers are masked, the lines and their layout are golden.
func TestStatShape(t *testing.T) {
	needPerfRoot(t)
	var stdout, stderr bytes.Buffer
	args := []string{"stat", "-r", "5", "-e", "task-clock,context-switches,cycles,raw_syscalls:sys_enter", "--",
		"perf", "bench", "sched", "messaging", "-g", "2", "-l", "200"}
	if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("kdelta stat: exit %d: %s", code, stderr.String())
	}
	masked := number.ReplaceAllStringFunc(stdout.String(), func(s string) string {
		return strings.Repeat("9", len(s))
	})
	// Widths of the numbers vary run to run: fold runs of 9s and spaces.
	masked = regexp.MustCompile(` *9+`).ReplaceAllString(masked, " N")
	path := filepath.Join("testdata", "stat-shape.golden")
	if *update {
		os.WriteFile(path, []byte(masked), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if masked != string(want) {
		t.Errorf("stat output shape changed:\n%s\nwant:\n%s\nraw:\n%s", masked, want, stdout.String())
	}
	for _, s := range []string{"Performance counter stats for 'perf bench sched messaging -g 2 -l 200' (5 runs):",
		"seconds time elapsed  ( +- ", "context-switches", "<not supported>"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("stat output lacks %q", s)
		}
	}
}
