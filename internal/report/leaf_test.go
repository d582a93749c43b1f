package report

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestReportIsALeaf is issue 36's "facts out, words at the edge": the
// analysis packages return facts and report alone turns them into words,
// so no package but the two edges (cli's commands and web's dashboard)
// imports report, and the table writers that lay words out in columns
// are imported by report alone. bench/web is a measuring program of
// report's own HTML page, outside the tool, and may import it as a test
// does.
func TestReportIsALeaf(t *testing.T) {
	testenv.NeedCommand(t, "go", "golang")
	const mod = "github.com/kdelta/kdelta/"
	edges := map[string][]string{
		mod + "internal/report": {mod + "internal/cli", mod + "internal/web", mod + "bench/web"},
		"text/tabwriter":        {mod + "internal/report"},
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		seen++
		pkg := f[0]
		for _, imp := range f[1:] {
			for target, allowed := range edges {
				if (imp == target || strings.HasPrefix(imp, target+"/")) && !slices.Contains(allowed, pkg) {
					t.Errorf("%s imports %s: only %s may", pkg, imp, strings.Join(allowed, ", "))
				}
			}
		}
	}
	if seen < 30 {
		t.Fatalf("go list listed %d packages, want the whole module:\n%s", seen, out)
	}
}
