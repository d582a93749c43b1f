package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"strings"
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
		{"exit status around a wrapped join", &exitError{code: ExitBad, err: fmt.Errorf("compare: %w", errors.Join(a, b))},
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
		if got := problems(tt.err); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: problems(%q) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestUsageLinuxOnlyCommandsExist checks that every command the list of
// commands needing Linux names is a command, with a RunE to guard, so a
// renamed command cannot start measuring on a laptop unnoticed.
func TestUsageLinuxOnlyCommandsExist(t *testing.T) {
	guarded := map[string]bool{}
	for cmds := newRoot(io.Discard, io.Discard).Commands(); len(cmds) > 0; cmds = cmds[1:] {
		c := cmds[0]
		guarded[c.CommandPath()] = c.RunE != nil
		cmds = append(cmds, c.Commands()...)
	}
	for path := range linuxOnlyCommands {
		if !guarded[path] {
			t.Errorf("%q needs Linux, but no such command has a RunE", path)
		}
	}
}

// TestHelpFilesUsed checks that every help file is some command's long
// help under the name it is filed by, so a file whose command was renamed
// or removed does not linger unread.
func TestHelpFilesUsed(t *testing.T) {
	longs := map[string]string{}
	for cmds := newRoot(io.Discard, io.Discard).Commands(); len(cmds) > 0; cmds = cmds[1:] {
		c := cmds[0]
		name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "kdelta "), " ", "-")
		longs[name] = c.Long
		cmds = append(cmds, c.Commands()...)
	}
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help files: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".txt")
		if long, ok := longs[name]; !ok || long != longHelp(name) {
			t.Errorf("%s: no command %q shows it as its long help", f, name)
		}
	}
}
