package cli_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// quotaCPUs is the CPU quota of quotaCgroup, in CPUs.
const quotaCPUs = 0.5

// quotaCgroup makes a cgroup whose tasks may use quotaCPUs (cpuCgroup).
func quotaCgroup(t *testing.T) string {
	t.Helper()
	return cpuCgroup(t, "quota", quotaCPUs)
}

// cpuCgroup makes a cgroup of the cpu controller named for the test and
// kind, whose tasks may use cpus CPUs (v1 cpu.cfs_quota_us over
// cpu.cfs_period_us, or v2 cpu.max, whichever this machine has; 0 for no
// quota), and removes it when the test ends. Its weight is the largest
// (v1 cpu.shares, v2 cpu.weight), so that on a machine busy with other
// work (CI's other test packages, other sessions' autogroups, against
// which a task's nice does not count) the quota is what limits its
// tasks, not their share. It returns the file a pid is written to, to
// join it.
func cpuCgroup(t *testing.T, kind string, cpus float64) string {
	t.Helper()
	testenv.NeedRoot(t, "to make a cgroup with a CPU quota")
	const period = 100000
	quota, max := strconv.Itoa(int(cpus*period)), fmt.Sprintf("%d %d", int(cpus*period), period)
	if cpus == 0 {
		quota, max = "-1", "max"
	}
	name := fmt.Sprintf("kdelta-test-%s-%d", kind, os.Getpid())
	var dir, join string
	// mkdir makes the cgroup and removes it when the test ends, also
	// when setting its quota fails.
	mkdir := func() {
		t.Helper()
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// Its tasks are gone once the test's commands ended;
			// rmdir can still race their exit for a moment.
			for i := 0; i < 50; i++ {
				if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Errorf("cgroup %s left behind", dir)
		})
	}
	switch {
	case exists("/sys/fs/cgroup/cgroup.controllers"):
		dir = filepath.Join("/sys/fs/cgroup", name)
		const subtree = "/sys/fs/cgroup/cgroup.subtree_control"
		if b, _ := os.ReadFile(subtree); !slices.Contains(strings.Fields(string(b)), "cpu") {
			if err := os.WriteFile(subtree, []byte("+cpu"), 0); err != nil {
				testenv.Skipf(t, "cannot enable the cpu controller for child cgroups: %v", err)
			}
			// Registered first, so it runs after the cgroup is gone:
			// the root's controllers as they were.
			t.Cleanup(func() {
				if err := os.WriteFile(subtree, []byte("-cpu"), 0); err != nil {
					t.Errorf("cpu controller left enabled in %s: %v", subtree, err)
				}
			})
		}
		mkdir()
		for _, f := range [][2]string{{"cpu.max", max}, {"cpu.weight", "10000"}} {
			if err := os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0); err != nil {
				t.Fatal(err)
			}
		}
		join = filepath.Join(dir, "cgroup.procs")
	case exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
		dir = filepath.Join("/sys/fs/cgroup/cpu", name)
		mkdir()
		for _, f := range [][2]string{{"cpu.cfs_period_us", strconv.Itoa(period)}, {"cpu.cfs_quota_us", quota}, {"cpu.shares", "262144"}} {
			if err := os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0); err != nil {
				t.Fatal(err)
			}
		}
		join = filepath.Join(dir, "cgroup.procs")
	default:
		testenv.Skip(t, "no cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 /sys/fs/cgroup)")
	}
	return join
}

// callsFor is how many getppid calls take about d here: the median of
// five timed batches of os.Getppid, a raw system call as kdelta's loop
// makes.
func callsFor(t *testing.T, d time.Duration) int {
	const batch = 20000
	var per []time.Duration
	for range 5 {
		start := time.Now()
		for range batch {
			os.Getppid()
		}
		per = append(per, time.Since(start)/batch)
	}
	slices.Sort(per)
	n := int(d / max(per[2], time.Nanosecond))
	t.Logf("getppid %v a call here: %d calls for %v", per[2], n, d)
	return n
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestRunUnderCPUQuota is issue 17's acceptance 3: kdelta run inside a
// cgroup with a CPU quota records the quota in the fingerprint, warns, and
// env diff against a set measured outside names it.
func TestRunUnderCPUQuota(t *testing.T) {
	join := quotaCgroup(t)
	bin, dir := kdeltaBinary(t), t.TempDir()
	free, limited := filepath.Join(dir, "free.json"), filepath.Join(dir, "quota.json")
	args := []string{"run", "syscall:calls=200000", "-r", "1", "--warmup", "0", "--no-store", "--counters", "none", "--monitor", "none", "-o"}
	if out, err := exec.Command(bin, append(args, free)...).CombinedOutput(); err != nil {
		t.Fatalf("kdelta run: %v: %s", err, out)
	}
	// The shell joins the cgroup, then becomes kdelta: everything kdelta
	// starts is inside.
	shArgs := append([]string{"-c", `echo $$ > "$0" && exec "$@"`, join, bin}, append(args, limited)...)
	sh := exec.Command("sh", shArgs...)
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta run in the cgroup: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "CPU quota of 0.50 CPU") {
		t.Errorf("no quota warning:\n%s", out)
	}
	s, err := result.Load(limited)
	if err != nil {
		t.Fatal(err)
	}
	q := s.Env.Cgroup.CPUQuota
	if !strings.Contains(q.Value, "50000/100000 us (0.50 CPU)") || !strings.Contains(q.Value, filepath.Base(filepath.Dir(join))) {
		t.Errorf("fingerprint's CPU quota %+v, want 50000/100000 at the test's cgroup", q)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "CPU quota") {
		t.Errorf("the set does not keep the warning: %q", s.Warnings)
	}
	diff, err := exec.Command(bin, "env", "diff", free, limited).CombinedOutput()
	if err != nil {
		t.Fatalf("env diff: %v: %s", err, diff)
	}
	var line string
	for _, l := range strings.Split(string(diff), "\n") {
		if strings.Contains(l, "CPU quota") || strings.Contains(l, "cgroup.cpu_quota") {
			line = l
		}
	}
	if !strings.Contains(line, "none") || !strings.Contains(line, "0.50 CPU") || !strings.HasPrefix(strings.TrimSpace(line), "!") {
		t.Errorf("env diff does not mark the quota as a relevant difference (%q):\n%s", line, diff)
	}
}

// TestQuotaRegressedOneSessionEach is issue 15's acceptance 3: a real
// effect is still found across sessions, one a side, once the host's
// session noise is calibrated. A kdelta run inside a cgroup allowed half
// a CPU is compared with one outside: syscall and pipe, whose runs want a
// whole CPU, take twice as long, and compare calls both regressed by about
// +100%, naming the design it judged. Uncalibrated, the same comparison
// says the session noise is unknown and claims nothing.
func TestQuotaRegressedOneSessionEach(t *testing.T) {
	join := quotaCgroup(t)
	bin, dir := kdeltaBinary(t), t.TempDir()
	// Runs of 0.3 s or more: a run shorter than the quota's period may
	// end before it is throttled. A getppid costs 250 ns on one machine
	// and 1,050 ns on another, so the calls are sized by this one's.
	// pipe's 40,000 round trips take 0.3 s where one costs 8 us, 0.6 s
	// where it costs 16.
	calls := callsFor(t, 400*time.Millisecond)
	setup := []string{fmt.Sprintf("syscall:calls=%d", calls), "pipe:loops=40000,cpus=same", "-r", "5", "--cpus", "0"}
	// Every kdelta runs in a cgroup of the largest weight, the free one
	// or the one with the quota. On a machine busy with other work (CI's
	// other test packages), a run of the default weight gets a part of
	// its CPU only, and a quota of half a CPU then takes less than it
	// would: the runs here get their CPU, as the ones a user compares
	// would.
	freeJoin := cpuCgroup(t, "free", 0)
	// exe runs a command with the store in dir/data (or another).
	exe := func(data, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, data))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}
	// in runs kdelta in a cgroup: the shell joins it, then becomes
	// kdelta, and kdelta's children are inside.
	in := func(join string, args ...string) string {
		t.Helper()
		return exe("data", "sh", append([]string{"-c", `echo $$ > "$0" && exec "$@"`, join, bin}, args...)...)
	}
	// Five sessions: a noise from three has two degrees of freedom, and
	// its t quantile (4.3) leaves a doubling of pipe inconclusive when
	// the host is busy (±12.6% on a CI run).
	t.Logf("kdelta calibrate:\n%s", in(freeJoin, append([]string{"calibrate", "--sessions", "5"}, setup...)...))
	free, limited := filepath.Join(dir, "free.json"), filepath.Join(dir, "quota.json")
	run := append(append([]string{"run"}, setup...), "--no-store", "--counters", "none", "--monitor", "none", "-o")
	in(freeJoin, append(run, free)...)
	in(join, append(run, limited)...)

	text := exe("data", bin, "compare", free, limited)
	t.Logf("kdelta compare, calibrated:\n%s", text)
	recs, err := csv.NewReader(strings.NewReader(exe("data", bin, "compare", free, limited, "--format", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := 1/quotaCPUs - 1 // a run that wants one CPU, given quotaCPUs of one
	primary := 0
	for _, f := range recs {
		// workload, params, metric, ..., set (5), ..., change (13), ..., verdict (17)
		if len(f) < 18 || f[5] != "quota" || (f[2] != "ns/call" && f[2] != "usecs/op") {
			continue
		}
		primary++
		change, _ := strconv.ParseFloat(f[13], 64)
		if f[17] != "regressed" || !(change >= 0.6*want && change <= 1.5*want) {
			t.Errorf("%s %s under a quota of %.2f CPU, calibrated: %+.1f%% %s, want regressed by +%.0f%% to +%.0f%%",
				f[0], f[2], quotaCPUs, 100*change, f[17], 60*want, 150*want)
		}
	}
	if primary != 2 {
		t.Errorf("%d primary verdicts, want syscall's and pipe's", primary)
	}
	// The verdict lines, unwrapped, name the design.
	if n := strings.Count(strings.Join(strings.Fields(text), " "), "regressed (5 runs × 1 session each, session noise ±"); n < 2 {
		t.Errorf("%d verdict lines name the design, want the 2 primary ones at least:\n%s", n, text)
	}

	// Another store, nothing calibrated (issue 34, acceptance 2): one
	// session each, judged under the prior session noise for this
	// virtual machine, which both primary verdicts name: a halving of
	// the CPU is far beyond it.
	bare := strings.Join(strings.Fields(exe("bare", bin, "compare", free, limited)), " ")
	for _, m := range []string{"ns/call", "usecs/op"} {
		i := strings.Index(bare, m+" (")
		if i < 0 {
			t.Errorf("uncalibrated: no %s row:\n%s", m, bare)
			continue
		}
		row := bare[i:]
		if j := strings.Index(row[1:], "B vs A:"); j >= 0 {
			row = row[j+1:]
		}
		if !strings.HasPrefix(row, "B vs A: +") || !strings.Contains(row[:min(len(row), 300)], "regressed (5 runs × 1 session each, session noise ±10.0% assumed for a virtual machine") {
			t.Errorf("uncalibrated, one session each, %s: want regressed under the named prior:\n%s", m, bare)
		}
	}
}
