package cli

import (
	"bytes"
	"os"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestIsTerminal checks the one terminal check: /dev/null is a character
// device but no terminal (the check it replaced said it was, so a
// progress bar went to /dev/null and results rm asked a question there);
// a pipe, a regular file and a buffer are none; a pseudo-terminal is one.
func TestIsTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(t.TempDir() + "/f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, f := range map[string]any{"/dev/null": null, "a pipe's reader": r, "a pipe's writer": w, "a file": file, "a buffer": &bytes.Buffer{}, "nil": nil} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		testenv.Skipf(t, "no pseudo-terminal to check a terminal with: %v", err)
	}
	defer pty.Close()
	if !isTerminal(pty) {
		t.Errorf("a pseudo-terminal (/dev/ptmx) is not taken for a terminal")
	}
}
