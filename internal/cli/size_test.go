package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line stays a thin layer: flags, one package call, a
// renderer. These bounds are issue 13's: 2,000 lines for the sixteen
// top-level commands kdelta had then, and each command added since gets a
// thin command's budget (flags, one call, a renderer), not more; logic
// that would push past them belongs in the package the command calls.
const (
	maxCLILines      = 2000
	issue13Commands  = 16
	perCommandBudget = 150
	maxCLIFuncBody   = 80
)

// TestCLIStaysThin counts the lines of the package's non-test files and
// of each function, and fails when the package or a function outgrows its
// bound.
func TestCLIStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	total := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		total += strings.Count(string(src), "\n")
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxCLIFuncBody {
				t.Errorf("%s: %s is %d lines (at most %d): move its logic into the package it calls", name, fn.Name.Name, n, maxCLIFuncBody)
			}
		}
	}
	commands := len(newRoot(io.Discard, io.Discard).Commands())
	bound := maxCLILines + perCommandBudget*max(0, commands-issue13Commands)
	if total > bound {
		t.Errorf("internal/cli is %d lines for %d commands (at most %d): move logic out of the command line", total, commands, bound)
	}
	t.Logf("internal/cli: %d lines in non-test files, %d top-level commands, bound %d", total, commands, bound)
}
