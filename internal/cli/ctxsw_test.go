package cli_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestContextSwitchPrintsSeconds is the seed 004 command of issue 16's
// acceptance: `kdelta run context_switch:test=yield --fifo 98 --cpus 1`
// prints a count of switches for every second, as the selftest's
// `chrt -f 98 ./context_switch` prints one number a line, beside the
// summary. Two seconds here instead of the default five.
func TestContextSwitchPrintsSeconds(t *testing.T) {
	testenv.NeedRoot(t, "SCHED_FIFO (--fifo 98)")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	var stdout, stderr bytes.Buffer
	args := []string{"run", "context_switch:test=yield,timeout=2", "--fifo", "98", "--cpus", "1", "-r", "2", "--warmup", "0", "--counters", "none", "--monitor", "none"}
	if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("kdelta %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	out := stdout.String()
	t.Logf("output:\n%s", out)
	for _, want := range []string{"switches/s", "ns/switch", "switches per second, a line a second as the reference prints them:", "| s | run 1 | run 2 |"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// A line per second, a count per run, each well above zero.
	line := regexp.MustCompile(`(?m)^\s+\|\s+(\d+) \|\s+(\d+) \|\s+(\d+) \|$`)
	rows := line.FindAllStringSubmatch(out, -1)
	if len(rows) != 2 {
		t.Fatalf("%d per-second lines, want 2", len(rows))
	}
	for i, r := range rows {
		if r[1] != strconv.Itoa(i+1) {
			t.Errorf("line %d is second %s", i+1, r[1])
		}
		for _, c := range r[2:] {
			if n, _ := strconv.Atoi(c); n < 1000 {
				t.Errorf("second %s: %s switches, fewer than a thousand", r[1], c)
			}
		}
	}
}
