package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestImportVariants imports seed mail 002's SMT table as a user does:
// -o writes a set per variant and names the files, compare of the two
// says what the values give ("31.6% faster", no test), --variant picks
// one, and a bad table is exit 2 naming its file and line.
func TestImportVariants(t *testing.T) {
	ownStore(t)
	dir := t.TempDir()
	smt := filepath.Join("..", "result", "testdata", "import", "seed-002-smt.txt")
	out := filepath.Join(dir, "smt.json")
	code, _, errs := kd(t, "import", smt, "--no-store", "-o", out)
	with, without := filepath.Join(dir, "smt-with-patch.json"), filepath.Join(dir, "smt-without-patch.json")
	if code != 0 || !strings.Contains(errs, with+" "+without) {
		t.Fatalf("import -o: exit %d: %q", code, errs)
	}
	code, stdout, errs := kd(t, "compare", without, with)
	if code != 0 || !strings.Contains(stdout, "B vs A: 31.6% faster; one value each, no spread to test") || strings.Contains(stdout, "p=") {
		t.Errorf("compare: exit %d:\n%s%s", code, stdout, errs)
	}

	one := filepath.Join(dir, "with.json")
	if code, _, errs = kd(t, "import", smt, "--no-store", "--variant", "With Patch", "-o", one); code != 0 || errs != "" {
		t.Fatalf("--variant: exit %d: %q", code, errs)
	}
	s, err := result.Load(one)
	if err != nil || s.Labels["variant"] != "with-patch" {
		t.Errorf("--variant: %v, labels %v", err, s.Labels)
	}
	if code, _, errs = kd(t, "import", smt, "--no-store", "--variant", "nope"); code != 2 || !strings.Contains(errs, "with-patch, without-patch") {
		t.Errorf("--variant nope: exit %d: %q", code, errs)
	}

	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("Run  Mean(us)  Max(us)\n1  5  6\n2  7\n"), 0o644)
	if code, _, errs = kd(t, "import", bad, "--no-store"); code != 2 || !strings.Contains(errs, bad+":3: expected 3 cells") {
		t.Errorf("bad table: exit %d: %q", code, errs)
	}
}
