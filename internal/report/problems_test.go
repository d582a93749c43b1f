package report

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// TestErrorProblems checks how an error becomes lines: a join is a line
// per error under the context wrapped around it, however deep; anything
// else is its first line only.
func TestErrorProblems(t *testing.T) {
	a, b, c := errors.New("alpha 2 is not in (0, 1)"), errors.New("test \"x\" is not known"), errors.New("better \"up\" is not known")
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"plain", a, []string{"alpha 2 is not in (0, 1)"}},
		{"join", errors.Join(a, b), []string{"alpha 2 is not in (0, 1)", `test "x" is not known`}},
		{"wrapped join", fmt.Errorf("--alpha/--test: %w", errors.Join(a, b)),
			[]string{"--alpha/--test: alpha 2 is not in (0, 1)", `--alpha/--test: test "x" is not known`}},
		{"an error type around a wrapped join", &wrapped{fmt.Errorf("compare: %w", errors.Join(a, b))},
			[]string{"compare: alpha 2 is not in (0, 1)", `compare: test "x" is not known`}},
		{"join in a join", fmt.Errorf("job: %w", errors.Join(a, fmt.Errorf("b: %w", errors.Join(b, c)))),
			[]string{"job: alpha 2 is not in (0, 1)", `job: b: test "x" is not known`, `job: b: better "up" is not known`}},
		{"join of one", fmt.Errorf("x: %w", errors.Join(a)), []string{"x: alpha 2 is not in (0, 1)"}},
		{"two %w on one line", fmt.Errorf("%w, and %w", a, b), []string{`alpha 2 is not in (0, 1), and test "x" is not known`}},
		{"a tool's output", fmt.Errorf("perf report: exit status 1: %s", "perf: bad file\npanic: runtime error\ngoroutine 1 [running]:"),
			[]string{"perf report: exit status 1: perf: bad file"}},
		{"a join whose error has several lines", errors.Join(a, errors.New("first\nsecond")), []string{"alpha 2 is not in (0, 1)", "first"}},
	}
	for _, tt := range tests {
		if got := Problems(tt.err); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Problems(%q) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

// wrapped is an error type of its own around another, as cli's exit
// status is.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
