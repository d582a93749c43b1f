package sysinfo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// collectEnv names the variable that turns the test binary into a helper
// which prints the fingerprint of the tree it names as JSON and exits:
// tests run it under other credentials or in another mount namespace.
const collectEnv = "KDELTA_SYSINFO_COLLECT"

func TestMain(m *testing.M) {
	if root := os.Getenv(collectEnv); root != "" {
		fp := Collect(FS{Root: root}, Options{})
		if err := json.NewEncoder(os.Stdout).Encode(fp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sharedFixtures is the third-party fixture folder, read in place.
var sharedFixtures = filepath.Join("..", "..", "..", "shared", "fixtures")

// shared returns the path of a shared fixture, skipping the test when the
// folder is absent.
func shared(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{sharedFixtures}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		testenv.Skipf(t, "shared fixture not present: %v", err)
	}
	return p
}

// checkText fails on lines wider than textWidth or not plain ASCII.
func checkText(t *testing.T, what, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if len(line) > textWidth {
			t.Errorf("%s line %d is %d columns: %q", what, i+1, len(line), line)
		}
		for _, r := range line {
			if r < 0x20 || r > 0x7e {
				t.Errorf("%s line %d has non-ASCII %q: %q", what, i+1, r, line)
				break
			}
		}
	}
}

// checkFacts fails on a fingerprint entry that has neither a value nor a
// reason: every fact must say what it is or why it is unknown.
func checkFacts(t *testing.T, fp *Fingerprint) {
	t.Helper()
	for _, e := range fp.entries() {
		if e.fact.Value == "" && e.fact.Unknown == "" {
			t.Errorf("%s: neither value nor reason", e.name)
		}
		if e.fact.Value != "" && e.fact.Unknown != "" {
			t.Errorf("%s: both value %q and reason %q", e.name, e.fact.Value, e.fact.Unknown)
		}
	}
}

// writeFile writes content to rel under root, making its directories.
func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
