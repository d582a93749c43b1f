package report

import (
	"strings"
	"testing"
)

// TestShown: a name from the lab's database is shown as it is when
// printable, quoted with its escapes otherwise, so that it cannot drive
// the terminal.
func TestShown(t *testing.T) {
	if got := shown("p10-a"); got != "p10-a" {
		t.Errorf("shown(p10-a) = %s", got)
	}
	if got := shown("a\x1b[2Jb"); strings.ContainsRune(got, 0x1b) {
		t.Errorf("shown kept an escape: %q", got)
	}
}
