package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRTBudget: the cgroup whose real-time budget is 0 is named with the
// file to raise, the one nearest the root first; a cgroup with a budget,
// cgroup v2 alone, or no cpu controller says nothing.
func TestRTBudget(t *testing.T) {
	root := t.TempDir()
	write := func(dir, v string) {
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "cpu.rt_runtime_us"), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".", "950000")
	write("ok", "100000")
	write("a", "0")
	write("a/b", "0")
	write("c", "500000")
	write("c/d", "0")
	for _, tc := range []struct{ name, cgroup, want string }{
		{"budget", "1:cpu,cpuacct:/ok\n0::/\n", ""},
		{"root", "2:cpuacct:/\n1:cpu:/\n", ""},
		{"v2 only", "0::/user.slice\n", ""},
		{"leaf 0", "3:cpu,cpuacct:/c/d\n", filepath.Join(root, "c/d/cpu.rt_runtime_us") + " is 0"},
		{"parent 0", "1:cpu:/a/b\n", "from " + filepath.Join(root, "a/cpu.rt_runtime_us") + " down"},
		{"not mounted here", "1:cpu:/gone\n", ""},
	} {
		got := rtBudget(tc.cgroup, []string{filepath.Join(root, "missing"), root})
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got != "" && strings.Contains(got, "\n") {
			t.Errorf("%s: several lines: %q", tc.name, got)
		}
	}
}
