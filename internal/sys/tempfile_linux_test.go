package sys

import (
	"io"
	"os"
	"testing"
)

// TestAnonymousTemp checks that the file works as a file and that the
// temporary directory holds nothing while it is open.
func TestAnonymousTemp(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	f, err := AnonymousTemp("kdelta-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("a line\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<10))
	if err != nil || string(b) != "a line\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}
