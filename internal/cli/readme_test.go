package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kdelta/kdelta/internal/doctest"
	"github.com/kdelta/kdelta/internal/testenv"
)

// docPages are the README and every page of the manual: the files whose
// examples TestDocExamples runs.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, pages...)
}

// TestDocExamples runs every example of the README and docs/ — each
// command as the page shows it, in a directory holding the inputs it
// names from docs/examples — and holds the page to what kdelta printed:
// byte for byte, or by shape where a measurement prints new figures each
// time. An example another test runs (a kernel series) is checked to name
// a test that exists and reads it.
func TestDocExamples(t *testing.T) {
	pages := docPages(t)
	names := map[string]string{}
	n := 0
	for _, page := range pages {
		exs, err := doctest.Read(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range exs {
			if other, ok := names[ex.Name]; ok {
				t.Errorf("%s:%d: example %s is also in %s", ex.File, ex.Line, ex.Name, other)
			}
			names[ex.Name] = fmt.Sprintf("%s:%d", ex.File, ex.Line)
			n++
			t.Run(ex.Name, func(t *testing.T) {
				if ex.By != "" {
					checkRunBy(t, ex)
					return
				}
				if ex.Root {
					testenv.NeedRoot(t, "the example flips a kernel knob")
				}
				runExample(t, ex)
			})
		}
	}
	// The README shows the three everyday tasks at least.
	if n < 3 {
		t.Errorf("%d examples in %v, want the README's three at least", n, pages)
	}
}

// runExample runs one example as a testscript of its own: each command
// through exec, its stdout held to the page by the doc command.
func runExample(t *testing.T, ex doctest.Example) {
	var script strings.Builder
	for i, s := range ex.Steps {
		args, ok := strings.CutPrefix(s.Cmd, "kdelta ")
		if !ok {
			t.Fatalf("%s:%d: example %s: command %q is not kdelta's", ex.File, ex.Line, ex.Name, s.Cmd)
		}
		fmt.Fprintf(&script, "exec kdelta %s\ndoc %d\n", args, i)
	}
	ar := &txtar.Archive{Comment: []byte(script.String())}
	for _, in := range ex.Inputs {
		b, err := os.ReadFile(filepath.Join("../../docs/examples", in))
		if err != nil {
			t.Fatalf("%s:%d: example %s: input: %v", ex.File, ex.Line, ex.Name, err)
		}
		ar.Files = append(ar.Files, txtar.File{Name: in, Data: b})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ex.Name+".txtar"), txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			// The store and state of the example are its own.
			e.Setenv("XDG_DATA_HOME", filepath.Join(e.WorkDir, ".data"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(e.WorkDir, ".state"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(e.WorkDir, ".cache"))
			e.Setenv("KDELTA_STORE", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"doc": func(ts *testscript.TestScript, neg bool, args []string) {
				i, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("doc: %v", err)
				}
				if d := ex.Match(i, ts.ReadFile("stdout")); d != "" {
					ts.Fatalf("%s", d)
				}
			},
		},
	})
}

// checkRunBy checks that the test an example names exists and reads the
// example by its name, so the page's block is held to that test's output.
func checkRunBy(t *testing.T, ex doctest.Example) {
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(ex.By) + `\(t \*testing\.T\)`)
	files, err := filepath.Glob("../../internal/*/*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(b) {
			if !strings.Contains(string(b), strconv.Quote(ex.Name)) {
				t.Errorf("%s:%d: example %s: %s (%s) does not read it", ex.File, ex.Line, ex.Name, ex.By, f)
			}
			return
		}
	}
	t.Errorf("%s:%d: example %s: no test %s", ex.File, ex.Line, ex.Name, ex.By)
}
