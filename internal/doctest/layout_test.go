package doctest

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestLayoutListsEveryPackage holds docs/layout.md's table of packages to
// the module: a row for every package `go list ./...` lists, and none
// for a package that is not there.
func TestLayoutListsEveryPackage(t *testing.T) {
	testenv.NeedCommand(t, "go", "golang")
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/kdelta/kdelta/"
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		pkgs = append(pkgs, strings.TrimPrefix(p, mod))
	}
	page, err := os.ReadFile("../../docs/layout.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(string(page), -1) {
		rows = append(rows, m[1])
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list listed %d packages, want the module's: %q", len(pkgs), pkgs)
	}
	for _, p := range pkgs {
		if !slices.Contains(rows, p) {
			t.Errorf("docs/layout.md has no row for %s", p)
		}
	}
	for _, r := range rows {
		if !slices.Contains(pkgs, r) {
			t.Errorf("docs/layout.md has a row for %s, which go list does not list", r)
		}
	}
}
