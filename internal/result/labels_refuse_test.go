package result

import (
	"strings"
	"testing"
)

// TestParseLabelsRefuses: a label that would split a row of results ls,
// reach a terminal as an escape sequence, or could never be queried is
// refused at creation, with the reason.
func TestParseLabelsRefuses(t *testing.T) {
	for _, tc := range []struct{ label, msg string }{
		{"note=a\nb", "control character"},
		{"note=\x1b[31mred", "control character"},
		{"no\tte=x", "control character"},
		{"a/b=c", `key "a/b" holds "/"`},
		{"a,b=c", `key "a,b" holds ","`},
		{"novalue", "not key=value"},
	} {
		_, err := ParseLabels([]string{tc.label})
		if err == nil || !strings.Contains(err.Error(), tc.msg) || strings.ContainsAny(err.Error(), "\n\x1b") {
			t.Errorf("ParseLabels(%q) = %v; want one line with %q", tc.label, err, tc.msg)
		}
	}
	m, err := ParseLabels([]string{"branch=feat/x", "list=a,b", "kernel=6.18 rc1"})
	if err != nil || m["branch"] != "feat/x" || m["list"] != "a,b" {
		t.Errorf("ParseLabels of plain values: %v %v", m, err)
	}
}
