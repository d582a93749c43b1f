package workload

import "testing"

func TestPipeOrderFor(t *testing.T) {
	for v, want := range map[string]string{
		"6.1.192": "legacy",    // Debian 12's perf
		"6.14.11": "legacy",    // the last release with the old loop
		"6.15":    "symmetric", // the loop changed in 6.15
		"6.15.0":  "symmetric",
		"6.19.14": "symmetric",
		"7.1.7":   "symmetric",
		"5.10.0":  "legacy",
		"":        "symmetric", // no perf: today's perf
	} {
		if got := pipeOrderFor(v); got != want {
			t.Errorf("pipeOrderFor(%q) = %s, want %s", v, got, want)
		}
	}
}

// TestPipeOrderAuto checks that order=auto, the default, is resolved when
// the spec is parsed, from the perf version in force, and that an order
// the user gives stays.
func TestPipeOrderAuto(t *testing.T) {
	saved := PerfVersion()
	defer SetPerfVersion(saved)
	for _, tc := range []struct{ perf, spec, want string }{
		{"6.1.192", "pipe", "legacy"},
		{"6.16.2", "pipe", "symmetric"},
		{"6.16.2", "pipe:order=auto", "symmetric"},
		{"6.16.2", "pipe:order=legacy", "legacy"},
		{"6.1.192", "pipe:order=symmetric", "symmetric"},
		{"", "pipe", "symmetric"},
	} {
		SetPerfVersion(tc.perf)
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Values["order"]; got != tc.want {
			t.Errorf("perf %q, %s: order=%s, want %s", tc.perf, tc.spec, got, tc.want)
		}
	}
}
