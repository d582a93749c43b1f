package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestShowPerSecond checks the selftest-shaped table: a line a second, a
// column a run, the counts whole; runs without them (an import) print
// nothing, and ten runs split into tables within 100 columns.
func TestShowPerSecond(t *testing.T) {
	run := func(i int, counts string) *result.Run {
		return &result.Run{Index: i, Info: map[string]string{result.InfoPerSecond: counts, result.InfoPerSecondOf: "switches"}}
	}
	var b bytes.Buffer
	showPerSecond(&b, []*result.Run{run(0, "55542 55562 55564"), run(1, "55138 55142")})
	want := `  switches per second, a line a second as the reference prints them:
  | s | run 1 | run 2 |
  |---|-------|-------|
  | 1 | 55542 | 55138 |
  | 2 | 55562 | 55142 |
  | 3 | 55564 |       |
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	showPerSecond(&b, []*result.Run{{Index: 0}})
	if b.Len() != 0 {
		t.Errorf("a run without per-second counts printed %q", b.String())
	}

	b.Reset()
	var many []*result.Run
	for i := 0; i < 10; i++ {
		many = append(many, run(i, "1234567 1234568"))
	}
	showPerSecond(&b, many)
	if n := strings.Count(b.String(), "| s |"); n != 2 {
		t.Errorf("10 runs in %d tables, want 2:\n%s", n, b.String())
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if len(line) > 100 {
			t.Errorf("line %d is %d columns", i+1, len(line))
		}
	}
	if !strings.Contains(b.String(), " run 10 |") {
		t.Errorf("run 10 missing:\n%s", b.String())
	}

	b.Reset()
	showPerSecond(&b, []*result.Run{run(0, "12 x")})
	if got := b.String(); !strings.Contains(got, fmt.Sprintf("info %s: bad count %q", result.InfoPerSecond, "x")) {
		t.Errorf("a bad count: %q", got)
	}
}
