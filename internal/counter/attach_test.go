package counter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// skipWithoutPerf skips a test on a machine where perf_event_open is
// unusable even for software events (no CONFIG_PERF_EVENTS, paranoid 3).
func skipWithoutPerf(t *testing.T) {
	t.Helper()
	attr := sys.PerfEventAttr{Type: sys.PerfTypeSoftware, Config: sys.PerfCountSWTaskClock, Bits: sys.PerfBitDisabled}
	fd, err := sys.PerfEventOpen(&attr, 0, -1, -1, 0)
	if err != nil {
		testenv.Skipf(t, "perf_event_open does not work here: %v", err)
	}
	sys.CloseFd(fd)
}

func counterByName(t *testing.T, cs []result.Counter, name string) result.Counter {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no counter %q in %+v", name, cs)
	return result.Counter{}
}

// countPingPong runs the pingpong helper (n pipe round trips, and a
// grandchild's m getppid calls) with evs attached before it starts, and
// returns the counters, open, and what the helper reported.
func countPingPong(t *testing.T, evs []Event, n, m int) (*Set, helperReport) {
	t.Helper()
	var out bytes.Buffer
	cmd, start := startHelper(t, "pingpong", &out, "N="+strconv.Itoa(n), "M="+strconv.Itoa(m))
	set, err := Attach(cmd.Process.Pid, evs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	start()
	if err := cmd.Wait(); err != nil {
		set.Close()
		t.Fatal(err)
	}
	var rep helperReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		set.Close()
		t.Fatalf("helper output %q: %v", out.String(), err)
	}
	return set, rep
}

// TestAttachPingPong attaches to a Go helper process that, after the
// go-ahead, makes the runtime create new threads, does n pipe round trips
// between two locked threads (4n read/write calls, 2n blocking reads) and
// runs a grandchild process doing m getppid calls. The syscall count must
// cover all of it (a thread or process missed by inheritance would be
// thousands short) and exceed it by little.
func TestAttachPingPong(t *testing.T) {
	skipWithoutPerf(t)
	const n, m = 5000, 50000
	evs, err := ParseEvents("task-clock,context-switches,cpu-migrations,page-faults,raw_syscalls:sys_enter,cycles,instructions")
	if err != nil {
		t.Fatal(err)
	}
	set, rep := countPingPong(t, evs, n, m)
	defer set.Close()
	if rep.ThreadsCreated == 0 {
		t.Errorf("the helper created no thread after attach (threads at go: %v): inheritance not exercised", rep.ThreadsAtGo)
	}
	cs := set.Read()
	for _, c := range cs {
		t.Logf("%-24s %12.0f %-3s enabled %d running %d %s", c.Name, c.Value, c.Unit, c.EnabledNs, c.RunningNs, c.Unsupported)
	}
	t.Logf("helper: %d threads at go-ahead, %d created after; notes %v", len(rep.ThreadsAtGo), rep.ThreadsCreated, set.Notes)

	sc := counterByName(t, cs, "raw_syscalls:sys_enter")
	if sc.Unsupported != "" {
		testenv.Skipf(t, "raw_syscalls:sys_enter: %s", sc.Unsupported)
	}
	// The slack covers the Go runtime's own calls: thread creation, the
	// grandchild's start-up (more of them under -race).
	want := float64(4*n + m)
	if sc.Value < want || sc.Value > want*1.02+1500 {
		t.Errorf("syscalls = %.0f, want %.0f .. +2%%+1500 (4×%d pipe calls + %d getppid)", sc.Value, want, n, m)
	} else {
		t.Logf("syscalls %.0f for %.0f expected: %+.2f%%", sc.Value, want, 100*(sc.Value/want-1))
	}
	cw := counterByName(t, cs, "context-switches")
	if lo, hi := 0.95*2*n, 1.10*2*n; cw.Value < lo || cw.Value > hi {
		t.Errorf("context switches = %.0f, want about %d (2 per round trip), in [%.0f, %.0f]", cw.Value, 2*n, lo, hi)
	} else {
		t.Logf("context switches %.0f for %d expected: %+.2f%%", cw.Value, 2*n, 100*(cw.Value/(2*n)-1))
	}
	if tc := counterByName(t, cs, "task-clock"); tc.Unsupported != "" || tc.Value <= 0 || tc.Unit != "ns" {
		t.Errorf("task-clock = %+v, want a positive count of ns", tc)
	}
	if pf := counterByName(t, cs, "page-faults"); pf.Value <= 0 {
		t.Errorf("page-faults = %+v, want > 0 (the grandchild faults its pages in)", pf)
	}
	for _, name := range []string{"cycles", "instructions"} {
		c := counterByName(t, cs, name)
		if c.Unsupported == "" {
			if c.Value <= 0 {
				t.Errorf("%s counted but %v", name, c.Value)
			}
			continue
		}
		// On a machine without a PMU (this VM): not supported, no value,
		// and no value in the JSON either.
		if !strings.HasPrefix(c.Unsupported, "not supported") || c.Value != 0 {
			t.Errorf("%s = %+v, want Unsupported \"not supported...\" and no value", name, c)
		}
		if c.EnabledNs != 0 || c.RunningNs != 0 {
			t.Errorf("%s: unsupported but with times %+v", name, c)
		}
	}
}

// TestUnsupportedCounterJSON checks how a counter that could not be counted
// is written: with its reason and a zero value, which readers ignore when
// unsupported is set.
func TestUnsupportedCounterJSON(t *testing.T) {
	c := result.Counter{Name: "cycles", Unsupported: "not supported (ENOENT)"}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"unsupported":"not supported (ENOENT)"`) || strings.Contains(string(b), "time_enabled") {
		t.Errorf("JSON %s", b)
	}
}

// TestAttachGoneProcess: attaching to a process that has exited is an
// error naming it, not a panic or an empty success.
func TestAttachGoneProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		testenv.Skip(t, "no true(1):", err)
	}
	evs, _ := ParseEvents("task-clock")
	if _, err := Attach(cmd.Process.Pid, evs, Options{}); err == nil || !strings.Contains(err.Error(), strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("Attach to an exited process: err = %v", err)
	}
}

// TestAttachNoGroup counts the same helper with one fd per event, the
// fallback for kernels that refuse group reads with inherit.
func TestAttachNoGroup(t *testing.T) {
	skipWithoutPerf(t)
	evs, _ := ParseEvents("context-switches,raw_syscalls:sys_enter,task-clock")
	var out bytes.Buffer
	cmd, start := startHelper(t, "pingpong", &out, "N=1000", "M=10000")
	set, err := Attach(cmd.Process.Pid, evs, Options{NoGroup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	start()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	cs := set.Read()
	set.Close()
	if c := set.Read()[0]; c.Unsupported == "" || c.Value != 0 {
		t.Errorf("read after close: %+v", c)
	}
	sc := counterByName(t, cs, "raw_syscalls:sys_enter")
	if sc.Unsupported != "" {
		testenv.Skip(t, sc.Unsupported)
	}
	if want := float64(4*1000 + 10000); sc.Value < want || sc.Value > want*1.02+1500 {
		t.Errorf("syscalls = %.0f, want %.0f .. +2%%+1500", sc.Value, want)
	}
}

// TestSystemWide counts context switches on every CPU while a helper does
// a ping-pong: the system-wide count includes at least the helper's.
func TestSystemWide(t *testing.T) {
	skipWithoutPerf(t)
	evs, _ := ParseEvents("context-switches,cpu-clock")
	set, err := Attach(0, evs, Options{SystemWide: true})
	if err != nil {
		testenv.Skipf(t, "system-wide counting not possible here: %v", err)
	}
	defer set.Close()
	if c := set.Read()[0]; c.Unsupported != "" {
		testenv.Skipf(t, "system-wide counting not possible here: %s", c.Unsupported)
	}
	var out bytes.Buffer
	cmd, start := startHelper(t, "pingpong", &out, "N=2000", "M=10")
	start()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	cs := set.Read()
	if cs[0].Value < 2*2000 {
		t.Errorf("system-wide context switches = %.0f, want ≥ %d", cs[0].Value, 2*2000)
	}
	if cs[1].Unit != "ns" || cs[1].Value <= 0 {
		t.Errorf("cpu-clock = %+v", cs[1])
	}
}

// TestCompareWithPerf runs the same command under perf stat and under
// Attach (through a Go helper that forks and execs it after the
// go-ahead) and checks that each pair of counts agrees within 5%. perf
// bench sched pipe is nearly deterministic: two context switches and about
// four system calls per loop.
func TestCompareWithPerf(t *testing.T) {
	skipWithoutPerf(t)
	perf, err := exec.LookPath("perf")
	if err != nil {
		testenv.Skip(t, "perf is not installed")
	}
	const events = "context-switches,raw_syscalls:sys_enter"
	bench := []string{perf, "bench", "sched", "pipe", "-l", "10000"}
	args := append([]string{"stat", "-x,", "-e", events, "--"}, bench...)
	var perfOut bytes.Buffer
	pc := exec.Command(perf, args...)
	pc.Stderr = &perfOut
	pc.Stdout = &bytes.Buffer{}
	if err := pc.Run(); err != nil {
		testenv.Skipf(t, "perf stat fails here: %v: %s", err, perfOut.String())
	}
	ref, err := parsePerfStatCSV(perfOut.String())
	if err != nil {
		t.Fatal(err)
	}

	evs, err := ParseEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal(bench)
	for _, mode := range []struct {
		name, helper string
		opt          Options
	}{
		// A Go shim forks and execs the command after the go-ahead: its
		// own few calls and switches are counted too.
		{"fork-exec", "exec", Options{}},
		// The helper execs itself into the command; counting starts at
		// the exec, as perf stat's does.
		{"enable-on-exec", "execve", Options{EnableOnExec: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cmd, start := startHelper(t, mode.helper, nil, "ARGV="+string(argv))
			set, err := Attach(cmd.Process.Pid, evs, mode.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			start()
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, c := range set.Read() {
				want, ok := ref[c.Name]
				if !ok {
					t.Errorf("perf stat printed no %s", c.Name)
					continue
				}
				if c.Unsupported != "" {
					t.Errorf("%s: %s", c.Name, c.Unsupported)
					continue
				}
				diff := c.Value/want - 1
				t.Logf("%-24s perf stat %8.0f  kdelta %8.0f  %+.2f%%", c.Name, want, c.Value, 100*diff)
				if math.Abs(diff) > 0.05 {
					t.Errorf("%s: kdelta %.0f vs perf stat %.0f: %+.1f%%, want within 5%%", c.Name, c.Value, want, 100*diff)
				}
			}
		})
	}
}

// parsePerfStatCSV reads perf stat -x, lines: value,unit,event,...
func parsePerfStatCSV(s string) (map[string]float64, error) {
	m := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		m[f[2]] = v
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no counts in perf stat output %q", s)
	}
	return m, nil
}

// TestPermissionDenied runs the helper as an unprivileged user (nobody),
// counting itself: under kernel.perf_event_paranoid ≥ 2 an event that
// includes the kernel is refused with EACCES and recorded as "permission
// denied" naming the paranoid value; the same event with :u counts; the
// tracepoint, whose id is readable by root only, is "permission denied"
// too. Nothing fails as a whole.
func TestPermissionDenied(t *testing.T) {
	skipWithoutPerf(t)
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to start a helper as another user")
	}
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		testenv.Skip(t, "no perf_event_paranoid:", err)
	}
	paranoid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if paranoid < 2 {
		testenv.Skipf(t, "kernel.perf_event_paranoid=%d lets unprivileged users count the kernel", paranoid)
	}
	// The test binary must be executable by nobody: copy it out of the
	// build directory (mode 0700) into a world-readable one.
	dir, err := os.MkdirTemp("", "kdelta-counter-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "counter.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"=self", "EVENTS=task-clock,task-clock:u,context-switches:u,raw_syscalls:sys_enter")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper as nobody: %v: %s", err, errb.String())
	}
	var rep struct {
		Counters []result.Counter `json:"counters"`
		Err      string           `json:"err"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("helper output %q: %v", out.String(), err)
	}
	for _, c := range rep.Counters {
		t.Logf("%-24s %10.0f %s", c.Name, c.Value, c.Unsupported)
	}
	if rep.Err != "" {
		t.Errorf("Attach failed as a whole: %s", rep.Err)
	}
	tc := counterByName(t, rep.Counters, "task-clock")
	wantPD := fmt.Sprintf("kernel.perf_event_paranoid=%d", paranoid)
	if !strings.HasPrefix(tc.Unsupported, "permission denied") || !strings.Contains(tc.Unsupported, wantPD) || tc.Value != 0 {
		t.Errorf("task-clock as nobody = %+v, want permission denied naming %s", tc, wantPD)
	}
	if paranoid == 2 {
		if u := counterByName(t, rep.Counters, "task-clock:u"); u.Unsupported != "" || u.Value <= 0 {
			t.Errorf("task-clock:u as nobody = %+v, want a count", u)
		}
	}
	if tp := counterByName(t, rep.Counters, "raw_syscalls:sys_enter"); tp.Unsupported == "" {
		t.Logf("raw_syscalls:sys_enter counted as nobody (tracefs readable): %+v", tp)
	} else if !strings.HasPrefix(tp.Unsupported, "permission denied") {
		t.Errorf("raw_syscalls:sys_enter as nobody = %+v, want permission denied", tp)
	}
}

// TestScaling sums reads of two threads, one multiplexed, as Read does:
// each read is scaled by its own enabled/running before the sum; an event
// whose reads never ran is "not counted", never 0.
func TestScaling(t *testing.T) {
	s := &Set{
		events: []Event{{Name: "cycles"}, {Name: "instructions"}, {Name: "cache-misses"}},
		reason: make([]string, 3),
		opened: []bool{true, true, true},
	}
	g1 := &group{events: []int{0, 1}, ids: []uint64{11, 12}}
	g2 := &group{events: []int{0, 1}, ids: []uint64{21, 22}}
	g3 := &group{events: []int{2}, ids: []uint64{31}}
	cs := s.counters([]groupRead{
		// Thread 1 counted all the time.
		{g: g1, v: sys.PerfValues{Enabled: 1000, Running: 1000, Values: []uint64{500, 700}, IDs: []uint64{11, 12}}},
		// Thread 2 was on the PMU a quarter of the time; ids in the other
		// order to check that values go by id.
		{g: g2, v: sys.PerfValues{Enabled: 4000, Running: 1000, Values: []uint64{30, 10}, IDs: []uint64{22, 21}}},
		// The third event was enabled but never got a counter.
		{g: g3, v: sys.PerfValues{Enabled: 500, Running: 0, Values: []uint64{0}, IDs: []uint64{31}}},
	})
	if c := cs[0]; c.Value != 500+10*4 || c.EnabledNs != 5000 || c.RunningNs != 2000 || !c.Scaled() {
		t.Errorf("cycles = %+v, want 540 scaled, enabled 5000 running 2000", c)
	}
	if c := cs[1]; c.Value != 700+30*4 {
		t.Errorf("instructions = %+v, want 820", c)
	}
	if c := cs[2]; c.Unsupported != "not counted (never scheduled on a counter)" || c.Value != 0 {
		t.Errorf("cache-misses = %+v", c)
	}
}

// TestClassifyPerfErrno checks the errno classification directly, with
// a paranoid file written here.
func TestClassifyPerfErrno(t *testing.T) {
	pf := filepath.Join(t.TempDir(), "perf_event_paranoid")
	os.WriteFile(pf, []byte("2\n"), 0o644)
	for _, tc := range []struct {
		errno  syscall.Errno
		kind   error
		prefix string
	}{
		{syscall.ENOENT, sys.ErrPerfNotSupported, "not supported (ENOENT)"},
		{syscall.EOPNOTSUPP, sys.ErrPerfNotSupported, "not supported ("}, // ENOTSUP on Linux
		{syscall.ENODEV, sys.ErrPerfNotSupported, "not supported (ENODEV)"},
		{syscall.EACCES, sys.ErrPerfPermission, "permission denied (EACCES, kernel.perf_event_paranoid=2:"},
		{syscall.EPERM, sys.ErrPerfPermission, "permission denied (EPERM, kernel.perf_event_paranoid=2:"},
		{syscall.EINVAL, nil, "perf_event_open: invalid argument"},
		{syscall.EMFILE, nil, "perf_event_open: too many open files"},
	} {
		e := sys.ClassifyPerfErrno(tc.errno, pf)
		if tc.kind != nil && !errors.Is(e, tc.kind) {
			t.Errorf("%v: not %v", tc.errno, tc.kind)
		}
		if !errors.Is(e, tc.errno) {
			t.Errorf("%v: errors.Is(errno) false", tc.errno)
		}
		if !strings.HasPrefix(e.Error(), tc.prefix) {
			t.Errorf("%v: %q, want prefix %q", tc.errno, e.Error(), tc.prefix)
		}
		if r := reasonFor(e); tc.kind == nil && !strings.HasPrefix(r, "not counted (") {
			t.Errorf("%v: reason %q", tc.errno, r)
		}
	}
	// Unreadable paranoid file: the message says so rather than guessing.
	if e := sys.ClassifyPerfErrno(syscall.EACCES, filepath.Join(t.TempDir(), "absent")); !strings.Contains(e.Error(), "paranoid=unknown") {
		t.Errorf("unreadable paranoid: %q", e.Error())
	}
}
