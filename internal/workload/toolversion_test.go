package workload

import (
	"strings"
	"testing"
)

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
	checkAuto(t, "perf", "order", []autoCase{
		{"6.1.192", "pipe", "legacy"},
		{"6.16.2", "pipe", "symmetric"},
		{"6.16.2", "pipe:order=auto", "symmetric"},
		{"6.16.2", "pipe:order=legacy", "legacy"},
		{"6.1.192", "pipe:order=symmetric", "symmetric"},
		{"", "pipe", "symmetric"},
	})
}

// TestKillPidMaxAuto checks that pidmax=auto, the default, follows the
// stress-ng in force: every-op before 0.17.02, once from it and without
// one; a pidmax the user gives stays.
func TestKillPidMaxAuto(t *testing.T) {
	checkAuto(t, "stress-ng", "pidmax", []autoCase{
		{"0.15.06", "kill", "every-op"}, // Debian 12
		{"0.17.01", "kill", "every-op"},
		{"0.17.02", "kill", "once"},
		{"0.21.03", "kill:pidmax=auto", "once"}, // seed mail 000
		{"0.19.02", "kill", "once"},
		{"", "kill", "once"},
		{"0.15.06", "kill:pidmax=once", "once"},
		{"0.21.03", "kill:pidmax=every-op", "every-op"},
	})
}

// TestVersionBefore checks the version order of the reference tools'
// numbers, leading zeros and suffixes included.
func TestVersionBefore(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want [3]int
		old  bool
	}{
		{"0.15.06", [3]int{0, 17, 2}, true}, {"0.17.02", [3]int{0, 17, 2}, false}, {"0.17.1", [3]int{0, 17, 2}, true},
		{"6.15-rc1", [3]int{6, 15, 0}, false}, {"6.14.11", [3]int{6, 15, 0}, true}, {"", [3]int{6, 15, 0}, false},
		{"x.y", [3]int{6, 15, 0}, false}, {"7", [3]int{6, 15, 0}, false},
	} {
		if got := versionBefore(tc.v, tc.want); got != tc.old {
			t.Errorf("versionBefore(%q, %v) = %v, want %v", tc.v, tc.want, got, tc.old)
		}
	}
}

// TestPipeCancelAuto checks that cancel=auto, the default, follows the
// glibc in force and the mode: toggle for threads before glibc 2.41,
// none for processes (whose calls glibc does not bracket), from 2.41 and
// without glibc; a cancel the user gives stays, and spawn=exec, whose
// peer is no raw worker, refuses toggle.
func TestPipeCancelAuto(t *testing.T) {
	checkAuto(t, "glibc", "cancel", []autoCase{
		{"2.36", "pipe:mode=thread", "toggle"}, // Debian 12
		{"2.40", "pipe:mode=thread", "toggle"},
		{"2.41", "pipe:mode=thread", "none"}, // the bracket went in 2.41
		{"2.42", "pipe:mode=thread,cancel=auto", "none"},
		{"", "pipe:mode=thread", "none"}, // a guest without glibc, musl
		{"2.36", "pipe", "none"},
		{"2.36", "pipe:mode=process", "none"},
		{"2.36", "pipe:mode=thread,cancel=none", "none"},
		{"2.42", "pipe:mode=thread,cancel=toggle", "toggle"},
		{"2.42", "pipe:cancel=toggle", "toggle"},
	})
	if _, err := ParseSpec("pipe:spawn=exec,cancel=toggle"); err == nil || !strings.Contains(err.Error(), "cancel=toggle needs") {
		t.Errorf("spawn=exec with cancel=toggle: %v", err)
	}
}

// TestContextSwitchCancelAuto checks context_switch's cancel=auto: toggle
// for its threads (the default mode) before glibc 2.41, none for
// processes and from 2.41.
func TestContextSwitchCancelAuto(t *testing.T) {
	checkAuto(t, "glibc", "cancel", []autoCase{
		{"2.36", "context_switch:test=pipe", "toggle"},
		{"2.36", "context_switch:test=pipe,mode=process", "none"},
		{"2.41", "context_switch:test=pipe", "none"},
		{"2.41", "context_switch:test=pipe,cancel=toggle", "toggle"},
	})
}

// autoCase is a spec parsed with one reference tool at a version, and the
// value its auto parameter must resolve to.
type autoCase struct{ version, spec, want string }

// checkAuto parses each case's spec with tool at the case's version and
// checks param's value.
func checkAuto(t *testing.T, tool, param string, cases []autoCase) {
	t.Helper()
	defer SetToolVersions(ToolVersions())
	for _, tc := range cases {
		SetToolVersions(map[string]string{tool: tc.version})
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Values[param]; got != tc.want {
			t.Errorf("%s %q, %s: %s=%s, want %s", tool, tc.version, tc.spec, param, got, tc.want)
		}
	}
}
