package sysinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// writeTree writes files (relative path -> content) under a new root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCgroup checks the cgroup facts under v2 and v1: the tightest limit
// on the path from the root wins, wherever on the path it is set, and no
// limit reads as none.
func TestCgroup(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  Cgroup
	}{
		{"v2, quota on the parent", map[string]string{
			"proc/self/cgroup":                            "0::/lab/job\n",
			"sys/fs/cgroup/cgroup.controllers":            "cpuset cpu memory\n",
			"sys/fs/cgroup/lab/cpu.max":                   "150000 100000\n",
			"sys/fs/cgroup/lab/job/cpu.max":               "max 100000\n",
			"sys/fs/cgroup/lab/memory.max":                "max\n",
			"sys/fs/cgroup/lab/job/memory.max":            "1073741824\n",
			"sys/fs/cgroup/lab/job/cpuset.cpus.effective": "2-3\n",
		}, Cgroup{
			Version: Fact{Value: "v2"}, Path: Fact{Value: "/lab/job"},
			CPUQuota:    Fact{Value: "150000/100000 us (1.50 CPU) at /lab"},
			Cpuset:      Fact{Value: "2-3"},
			MemoryLimit: Fact{Value: "1073741824 bytes (1.00 GiB) at /lab/job"},
		}},
		{"v1 hybrid, quota on the child", map[string]string{
			"proc/self/cgroup":                             "4:memory:/m\n3:cpuset:/\n1:cpu,cpuacct:/q\n0::/\n",
			"sys/fs/cgroup/unified/cgroup.controllers":     "\n",
			"sys/fs/cgroup/cpu/cpu.cfs_quota_us":           "-1\n",
			"sys/fs/cgroup/cpu/cpu.cfs_period_us":          "100000\n",
			"sys/fs/cgroup/cpu/q/cpu.cfs_quota_us":         "50000\n",
			"sys/fs/cgroup/cpu/q/cpu.cfs_period_us":        "100000\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":   "9223372036854771712\n",
			"sys/fs/cgroup/memory/m/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/cpuset/cpuset.effective_cpus":   "0-1\n",
		}, Cgroup{
			Version: Fact{Value: "v1 (hybrid, v2 at /sys/fs/cgroup/unified)"}, Path: Fact{Value: "/q"},
			CPUQuota:    Fact{Value: "50000/100000 us (0.50 CPU) at /q"},
			Cpuset:      Fact{Value: "0-1"},
			MemoryLimit: Fact{Value: "none"},
		}},
	} {
		c := &collector{fs: FS{Root: writeTree(t, tt.files)}, fp: &Fingerprint{}}
		c.cgroup()
		got := c.fp.Cgroup
		for _, f := range []struct {
			what      string
			got, want Fact
		}{{"version", got.Version, tt.want.Version}, {"path", got.Path, tt.want.Path}, {"cpu quota", got.CPUQuota, tt.want.CPUQuota},
			{"cpuset", got.Cpuset, tt.want.Cpuset}, {"memory limit", got.MemoryLimit, tt.want.MemoryLimit}} {
			if f.got.Value != f.want.Value || !f.got.Known() {
				t.Errorf("%s: %s = %+v, want %q", tt.name, f.what, f.got, f.want.Value)
			}
		}
		if n, ok := got.CPUQuotaCPUs(); ok != (got.CPUQuota.Value != "none") || ok && n <= 0 {
			t.Errorf("%s: CPUQuotaCPUs = %v, %v", tt.name, n, ok)
		}
	}
}
