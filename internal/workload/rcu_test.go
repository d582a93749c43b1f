package workload

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// runRCU runs the rcu workload in this process with given, as the child
// would, and returns its task.
func runRCU(t *testing.T, given map[string]string) *Task {
	t.Helper()
	w, ok := Lookup("rcu")
	if !ok {
		t.Fatal("rcu is not registered")
	}
	vals, err := Resolve(w, given)
	if err != nil {
		t.Fatal(err)
	}
	if reason := w.(Prechecker).Precheck(vals); reason != "" {
		testenv.Skipf(t, "rcu cannot run here: %s", reason)
	}
	// The runner calls Run on a locked thread; the test goroutine's
	// thread goes away with it.
	runtime.LockOSThread()
	task := NewTask(vals, nil)
	if err := w.Run(task); err != nil {
		if reason, ok := SkipReason(err); ok {
			testenv.Skipf(t, "rcu skipped: %s", reason)
		}
		t.Fatal(err)
	}
	if !task.Readied() {
		t.Error("Run never called Ready")
	}
	return task
}

// configValue returns the value of option key (CONFIG_HZ) in a kernel
// config: "250", "y", or "" when the option is unset or absent.
func configValue(r io.Reader, key string) (string, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return strings.TrimSpace(v), true
		}
		if line == "# "+key+" is not set" {
			return "", true
		}
	}
	return "", false
}

// kernelConfig returns option key of the running kernel's config and the
// file it came from; ok is false when no config is readable or it does not
// mention key.
func kernelConfig(key string) (value, source string, ok bool) {
	if f, err := os.Open("/proc/config.gz"); err == nil {
		defer f.Close()
		if z, err := gzip.NewReader(f); err == nil {
			if v, ok := configValue(z, key); ok {
				return v, "/proc/config.gz", true
			}
		}
	}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		p := "/boot/config-" + strings.TrimSpace(string(rel))
		if f, err := os.Open(p); err == nil {
			defer f.Close()
			if v, ok := configValue(f, key); ok {
				return v, p, true
			}
		}
	}
	return "", "", false
}

// kernelHZ returns the running kernel's CONFIG_HZ and where it came from.
// No system call reports it (sysconf's clock tick is USER_HZ, always 100),
// so it comes from the kernel's config when the kernel exposes it.
func kernelHZ() (int, string) {
	v, src, ok := kernelConfig("CONFIG_HZ")
	if !ok {
		return 0, ""
	}
	hz, err := strconv.Atoi(v)
	if err != nil || hz <= 0 {
		return 0, ""
	}
	return hz, src
}

func TestConfigValue(t *testing.T) {
	p := filepath.Join("..", "..", "..", "shared", "fixtures", "ppc64le-fedora", "config",
		"kernel-ppc64le-fedora.config.7.1.7-200.f44")
	f, err := os.Open(p)
	if err != nil {
		testenv.Skipf(t, "fixture not available: %v", err)
	}
	defer f.Close()
	if v, ok := configValue(f, "CONFIG_HZ"); !ok || v != "100" {
		t.Errorf("configValue(%s, CONFIG_HZ) = %q, %v; want 100, true", p, v, ok)
	}
	for _, tc := range []struct {
		text, key, want string
		ok              bool
	}{
		{"# CONFIG_HZ_1000 is not set\n", "CONFIG_HZ", "", false},
		{"CONFIG_HZ_250=y\nCONFIG_HZ=250\n", "CONFIG_HZ", "250", true},
		{"# CONFIG_BRIDGE_VLAN_FILTERING is not set\n", "CONFIG_BRIDGE_VLAN_FILTERING", "", true},
	} {
		if v, ok := configValue(strings.NewReader(tc.text), tc.key); v != tc.want || ok != tc.ok {
			t.Errorf("configValue(%q, %s) = %q, %v; want %q, %v", tc.text, tc.key, v, ok, tc.want, tc.ok)
		}
	}
}

func TestRCURun(t *testing.T) {
	hz, src := kernelHZ()
	floor := 1.0 // ms: one jiffy is at least this long for any HZ <= 1000
	if hz > 0 {
		floor = 1000 / float64(hz)
		t.Logf("CONFIG_HZ=%d from %s: every call must last at least half a jiffy (%.3g ms)", hz, src, floor)
	} else {
		t.Logf("CONFIG_HZ unknown (no /proc/config.gz or /boot/config): every call must last at least half of 1 ms, a jiffy at HZ <= 1000")
	}
	online, err := onlineCPUs("/")
	if err != nil {
		t.Fatal(err)
	}
	if len(online) > 1 && os.Geteuid() == 0 {
		// The jiffy floor is a claim about normal grace periods.
		testenv.NormalGracePeriods(t)
	}

	for _, tc := range []struct{ calls, callers int }{{20, 1}, {10, 2}} {
		t.Run(fmt.Sprintf("calls=%d,callers=%d", tc.calls, tc.callers), func(t *testing.T) {
			task := runRCU(t, map[string]string{"calls": strconv.Itoa(tc.calls), "callers": strconv.Itoa(tc.callers)})
			n := tc.calls * tc.callers
			r := task.Report
			if r.Ops != float64(n) {
				t.Errorf("ops = %v, want %d", r.Ops, n)
			}
			l := r.Latency
			if l == nil || l.Unit != "ms" || l.Count != n || len(l.Raw) != n {
				t.Fatalf("latency summary = %+v, want %d raw values in ms", l, n)
			}
			for _, m := range (rcuLatency{}).Metrics() {
				if _, ok := r.Values[m.Name]; !ok {
					t.Errorf("metric %s not set", m.Name)
				}
			}
			if !(l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max && l.Min <= l.Mean && l.Mean <= l.Max) {
				t.Errorf("summary out of order: %+v", l)
			}
			if r.Values["mean"] != l.Mean || r.Values["p50"] != l.P50 || r.Values["max"] != l.Max {
				t.Errorf("values %v do not match the latency summary %+v", r.Values, l)
			}
			for _, s := range rcuSettings {
				if r.Info[s.key] == "" {
					t.Errorf("info %s not recorded", s.key)
				}
			}
			if len(online) > 1 {
				// A normal grace period is driven by
				// scheduling-clock ticks and force-quiescent-state
				// scans a jiffy or more apart, so it lasts at least
				// a jiffy. (On the development machine, HZ=250, the
				// shortest of about 1000 calls, idle or loaded, was
				// 4.08 ms.)
				if e := r.Info["rcu_expedited"]; e != "0" && e != "not available" {
					testenv.Skipf(t, "rcu_expedited=%s: expedited grace periods need not wait a jiffy", e)
				}
				// The tick that starts a grace period may come late
				// and the one that ends it on time (3.993 ms at
				// HZ=250 in CI, 3.368 ms in another CI run): half a
				// jiffy is left for that, while an expedited one
				// lasts microseconds.
				for i, v := range l.Raw {
					if v < 0.5*floor {
						t.Errorf("call %d took %.3f ms, less than half a jiffy (%.3g ms)", i+1, v, floor)
					}
				}
				if _, warned := r.Info["warning"]; warned {
					t.Errorf("warning %q with %d CPUs online", r.Info["warning"], len(online))
				}
			} else if r.Info["warning"] == "" {
				t.Error("single online CPU not flagged")
			}
			if tc.callers > 1 && r.Info["caller_cpus"] == "" {
				t.Error("caller CPUs not recorded")
			}
		})
	}
}

// TestPercentileRcuscale checks Percentile against values worked out by
// hand with kvm-recheck-rcuscale.sh's rule: the sorted value at 1-based
// index max(1, floor(N*p/100)).
func TestPercentileRcuscale(t *testing.T) {
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(10 * (i + 1)) // 10, 20, ..., 10n
		}
		return s
	}
	for _, tc := range []struct {
		n    int
		p    float64
		want float64
	}{
		{1, 50, 10},     // floor(0.5)=0 -> index 1
		{1, 99, 10},     // floor(0.99)=0 -> index 1
		{2, 50, 10},     // floor(1)=1
		{3, 50, 10},     // floor(1.5)=1: the lower middle, not 20
		{4, 50, 20},     // floor(2)=2
		{10, 50, 50},    // floor(5)=5
		{10, 90, 90},    // floor(9)=9
		{10, 99, 90},    // floor(9.9)=9, not the maximum
		{20, 90, 180},   // floor(18)=18
		{20, 99, 190},   // floor(19.8)=19
		{100, 50, 500},  // floor(50)=50
		{100, 99, 990},  // floor(99)=99
		{150, 99, 1480}, // floor(148.5)=148
		{1000, 99, 9900},
	} {
		if got := Percentile(seq(tc.n), tc.p); got != tc.want {
			t.Errorf("Percentile(10..%d, %v) = %v, want %v", 10*tc.n, tc.p, got, tc.want)
		}
	}
}

func TestRecordRCUSettings(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sys/kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sys/kernel/rcu_expedited"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task := NewTask(Values{}, nil)
	recordRCUSettings(task, root)
	want := map[string]string{
		"rcu_expedited":           "1",
		"rcu_normal":              "not available",
		"rcu_normal_wake_from_gp": "not available",
		"jiffies_till_first_fqs":  "not available",
		"jiffies_till_next_fqs":   "not available",
	}
	for k, v := range want {
		if got := task.Report.Info[k]; got != v {
			t.Errorf("info %s = %q, want %q", k, got, v)
		}
	}
}

func TestOnlineCPUsFixtures(t *testing.T) {
	fx := filepath.Join("..", "..", "..", "shared", "fixtures")
	for _, tc := range []struct {
		dir  string
		want string
	}{
		{"s390x-z196-lpar-util-linux", "1-5,8-19"},
		{"s390x-z13-nested-virt-util-linux", "0-1"},
		{"x86_64-amd-epyc-7451-util-linux", "0-95"},
	} {
		cpus, err := onlineCPUs(filepath.Join(fx, tc.dir))
		if os.IsNotExist(err) {
			testenv.Skipf(t, "fixtures not available: %v", err)
		}
		if err != nil {
			t.Errorf("%s: %v", tc.dir, err)
			continue
		}
		if got := sys.FormatCPUList(cpus); got != tc.want {
			t.Errorf("%s: online = %s, want %s", tc.dir, got, tc.want)
		}
	}
}

// TestRCUExpedited flips /sys/kernel/rcu_expedited and checks the kernel's
// answer: expedited grace periods do not wait for ticks, so the median
// membarrier call gets more than ten times faster.
func TestRCUExpedited(t *testing.T) {
	const knob = "/sys/kernel/rcu_expedited"
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to write "+knob)
	}
	orig, err := os.ReadFile(knob)
	if err != nil {
		testenv.Skipf(t, "cannot read %s: %v", knob, err)
	}
	if online, err := onlineCPUs("/"); err != nil || len(online) < 2 {
		testenv.Skip(t, "needs two online CPUs: with one, membarrier waits for no grace period")
	}
	if b, err := os.ReadFile("/sys/kernel/rcu_normal"); err == nil && strings.TrimSpace(string(b)) != "0" {
		testenv.Skip(t, "rcu_normal is set: it overrides rcu_expedited")
	}
	// Restore the machine's setting whatever happens below.
	t.Cleanup(func() {
		if err := os.WriteFile(knob, orig, 0o644); err != nil {
			t.Errorf("restore %s to %q: %v", knob, strings.TrimSpace(string(orig)), err)
		}
	})
	median := map[string]float64{}
	for _, v := range []string{"0", "1"} {
		if err := os.WriteFile(knob, []byte(v), 0o644); err != nil {
			testenv.Skipf(t, "cannot write %s: %v", knob, err)
		}
		task := runRCU(t, map[string]string{"calls": "20"})
		if got := task.Report.Info["rcu_expedited"]; got != v {
			t.Fatalf("run recorded rcu_expedited=%s, want %s", got, v)
		}
		median[v] = task.Report.Values["p50"]
	}
	t.Logf("median membarrier latency: rcu_expedited=0 %.3f ms, rcu_expedited=1 %.3f ms (%.0fx)",
		median["0"], median["1"], median["0"]/median["1"])
	if !(median["0"] > 10*median["1"]) {
		t.Errorf("median with rcu_expedited=1 is %.3f ms, not 10x below %.3f ms", median["1"], median["0"])
	}
}
