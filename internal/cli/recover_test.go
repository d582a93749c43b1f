package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestLastResort shows what a bug's panic leaves: one line on stderr,
// after the marker, with the panic's value and where it happened, and
// exit status ExitUsage. The bad inputs of testdata/script/bad_sets.txtar
// and FuzzResultSet never reach it.
func TestLastResort(t *testing.T) {
	t.Setenv("KDELTA_TRACEBACK", "")
	var stderr bytes.Buffer
	code := func() (code int) {
		defer lastResort(&stderr, &code)
		at := func(s []int, i int) int { return s[i] }
		return at(nil, 3) // a bug: an index out of range
	}()
	if code != ExitUsage {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
	out := stderr.String()
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, bugMarker) {
		t.Fatalf("stderr is not one line after the marker:\n%s", out)
	}
	if !strings.Contains(out, "panic: runtime error: index out of range [3] with length 0") || !strings.Contains(out, "recover_test.go:") {
		t.Errorf("the line does not say the panic and where: %s", out)
	}
	// No panic: the status is left as it was.
	code = func() (code int) {
		defer lastResort(&stderr, &code)
		return ExitBad
	}()
	if code != ExitBad {
		t.Errorf("without a panic: exit %d, want %d", code, ExitBad)
	}
}
