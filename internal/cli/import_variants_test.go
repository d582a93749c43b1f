package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
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

	// Recorded, each variant is a set of the store, and said.
	code, _, errs = kd(t, "import", smt)
	if code != 0 || !regexp.MustCompile(`recorded as \S+-[0-9a-f]{12}, \S+-[0-9a-f]{12} in `).MatchString(errs) {
		t.Errorf("import into the store: exit %d: %q", code, errs)
	}
	if _, stdout, _ = kd(t, "results", "ls", "--label", "variant=with-patch"); strings.Count(stdout, "\n") != 2 {
		t.Errorf("results ls --label variant=with-patch:\n%s", stdout)
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

// TestImportAsRcu imports seed mail 002's baseline table --as rcu and
// compares it with a real kdelta run rcu: the mail's numbers are the
// baseline of a new measurement, metric by metric, instead of "the sets
// share no workload".
func TestImportAsRcu(t *testing.T) {
	ownStore(t)
	dir := t.TempDir()
	table := filepath.Join("..", "result", "testdata", "import", "seed-002-baseline.md")
	mail := filepath.Join(dir, "mail.json")
	if code, _, errs := kd(t, "import", table, "--no-store", "--as", "rcu", "-o", mail); code != 0 {
		t.Fatalf("import --as rcu: exit %d: %q", code, errs)
	}
	run := filepath.Join(dir, "run.json")
	if code, _, errs := kd(t, "run", "rcu:calls=20", "-r", "3", "--no-store", "-o", run); code != 0 {
		t.Fatalf("run rcu: exit %d: %q", code, errs)
	}
	s, err := result.Load(run)
	if err != nil {
		t.Fatal(err)
	}
	if reason := s.Benchmarks[0].Skipped; reason != "" {
		testenv.Skip(t, "rcu cannot run here: "+reason)
	}
	code, out, errs := kd(t, "compare", mail, run)
	if code != 0 || strings.Contains(out+errs, "share no workload") {
		t.Fatalf("compare: exit %d:\n%s%s", code, out, errs)
	}
	for _, m := range []string{"mean", "min", "max"} {
		if !strings.Contains(out, "\n  "+m+" (ms, lower is better") {
			t.Errorf("no row of %s:\n%s", m, out)
		}
	}
	if !regexp.MustCompile(`Mean latency \([^)]*\): 9\.72 ms -> `).MatchString(out) {
		t.Errorf("no mean latency line from the mail's table:\n%s", out)
	}

	if code, _, errs = kd(t, "import", table, "--no-store", "--as", "nope"); code != 2 || !strings.Contains(errs, "--as nope: no such workload") {
		t.Errorf("--as nope: exit %d: %q", code, errs)
	}
}
