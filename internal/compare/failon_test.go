package compare

import (
	"slices"
	"testing"
)

// TestFailOn: --fail-on regression fails on the first regressed metric,
// named as kdelta compare (workload and metric) or kdelta ab (the
// variant first) names it; nothing else fails.
func TestFailOn(t *testing.T) {
	base := set(nil, nil, 100, 101, 99, 100, 102)
	slower := set(nil, nil, 120, 121, 119, 120, 122)
	same := set(nil, nil, 100, 101, 99, 100, 102)
	r, err := Compare([]Input{{"a", base}, {"b", same}, {"c", slower}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Regressed(false); !slices.Equal(got, []string{"syscall ns/call"}) {
		t.Errorf("Regressed(false) = %q", got)
	}
	if got := r.Regressed(true); !slices.Equal(got, []string{"c syscall ns/call"}) {
		t.Errorf("Regressed(true) = %q", got)
	}
	tests := []struct {
		cond      string
		regressed []string
		want      string // "" for no error
	}{
		{"", []string{"c syscall ns/call"}, ""},
		{"regression", nil, ""},
		{"regression", []string{"c syscall ns/call", "b vs a: syscall ns/call: +20% regressed"}, "regression: c syscall ns/call"},
		{"regression", []string{"b vs a: syscall ns/call: +20% regressed"}, "regression: b vs a: syscall ns/call: +20% regressed"},
	}
	for _, tt := range tests {
		err := FailOn(tt.cond, tt.regressed)
		if got := errText(err); got != tt.want {
			t.Errorf("FailOn(%q, %q) = %q, want %q", tt.cond, tt.regressed, got, tt.want)
		}
	}
}

func TestCheckFailOn(t *testing.T) {
	for cond, want := range map[string]string{
		"":            "",
		"regression":  "",
		"regressions": `--fail-on: unknown value "regressions" (regression)`,
	} {
		if got := errText(CheckFailOn(cond)); got != want {
			t.Errorf("CheckFailOn(%q) = %q, want %q", cond, got, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
