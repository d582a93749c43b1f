package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/testenv"
)

// TestMeasuredChildQuiet is issue 14's guard on the measured child:
// syscall's loop runs on a raw thread (sys.NullLoopThread) and the thread
// that started it waits for it with its P given back, so none of the Go
// runtime's threads in the child switches inside the timed loop, counted
// from /proc/PID/task/TID/status at two instants inside the window. On a
// locked goroutine, sysmon woke every 10 ms to look at the loop and
// preempted it, on its CPU when the child is pinned: 201 and 205 switches
// in 2 s.
func TestMeasuredChildQuiet(t *testing.T) {
	checkChildQuiet(t, "syscall:calls=20000000", still)
}

// TestRCUCallerQuiet is the same guard on rcu, whose caller waits in the
// kernel for a grace period at every call: a raw call that keeps its P,
// so no runtime thread is handed it (380 wake-ups a second before), but
// sysmon looks in every 10 ms.
func TestRCUCallerQuiet(t *testing.T) {
	// 200 normal grace periods are a window of a second or more; expedited
	// ones (as some kernels boot) end it in milliseconds, before the
	// threads can be read in it.
	testenv.NormalGracePeriods(t)
	checkChildQuiet(t, "rcu:calls=200", sysmonFloor)
}

// quiet is how still the measured child's runtime threads must be.
type quiet int

const (
	// sysmonFloor: at most one switch per 10 ms of window, sysmon's looks
	// at a thread that keeps its P; the measured task is the main thread.
	sysmonFloor quiet = iota
	// still: none (one for a sleep that straddles the window's start);
	// the measured task is a raw thread, the one that runs the most.
	still
)

// checkChildQuiet runs workload once and checks that the measured child's
// other threads stay as still as q says, and the parent's under sysmon's
// floor, inside its timed part.
func checkChildQuiet(t *testing.T, workload string, q quiet) {
	t.Helper()
	cmd, _, child := startMeasured(t, workload)
	// Past the child's start-up, inside the loop (about 2 s here).
	time.Sleep(300 * time.Millisecond)
	parent := strconv.Itoa(cmd.Process.Pid)
	pBefore := threadSwitches(parent)
	before, ticks0, t0 := threadSwitches(child), threadTicks(child), time.Now()
	time.Sleep(700 * time.Millisecond)
	after, ticks1, el := threadSwitches(child), threadTicks(child), time.Since(t0)
	pAfter := threadSwitches(parent)
	interrupt(t, cmd)
	measured := child // the main thread's tid is the pid
	if q == still {
		most := -1
		for tid, n := range ticks1 {
			if d := n - ticks0[tid]; d > most {
				measured, most = tid, d
			}
		}
		if measured == child {
			t.Errorf("the main thread ran the loop, not a raw thread (%d ticks in %v)", most, el.Round(time.Millisecond))
		}
	}
	others, n := 0, 0
	for tid, a := range after {
		b, ok := before[tid]
		if !ok || tid == measured {
			continue
		}
		others += a - b
		n++
	}
	if _, ok := before[measured]; !ok || len(after) == 0 {
		t.Fatalf("the child's threads were not read inside the window (%d then %d threads)", len(before), len(after))
	}
	// sysmon sleeps 10 ms between looks at a running thread, so a window
	// holds at most one wake-up per 10 ms, plus one that straddles its
	// start.
	per10ms := float64(others-1) / (float64(el) / float64(10*time.Millisecond))
	t.Logf("%s: the measured child's %d other threads switched %d times in %v of window: %.2f per 10 ms; the measured thread %d, %d ticks",
		workload, n, others, el.Round(time.Millisecond), per10ms, after[measured]-before[measured], ticks1[measured]-ticks0[measured])
	switch {
	case q == still && others > 1:
		t.Errorf("the child's runtime threads switched %d times in %v of window, want none", others, el.Round(time.Millisecond))
	case per10ms > 1:
		t.Errorf("the child's runtime threads switched %.2f times per 10 ms of window, more than sysmon's once", per10ms)
	}
	// The parent kdelta waits in wait4 and on the child's pipe: no timer,
	// ticker or monitor of its own wakes during the window, so all its
	// threads together stay under sysmon's floor too.
	pn := 0
	for tid, a := range pAfter {
		if b, ok := pBefore[tid]; ok {
			pn += a - b
		}
	}
	pPer10ms := float64(pn) / (float64(el) / float64(10*time.Millisecond))
	t.Logf("parent kdelta: %d threads switched %d times in the window: %.2f per 10 ms", len(pAfter), pn, pPer10ms)
	if len(pBefore) == 0 || pPer10ms > 1 {
		t.Errorf("the parent's threads switched %.2f times per 10 ms of window (%d threads read)", pPer10ms, len(pBefore))
	}
}

// startMeasured starts one run of workload, with no counters or
// monitors, and waits until its measured child is seen.
func startMeasured(t *testing.T, workload string) (cmd *exec.Cmd, mark, child string) {
	t.Helper()
	cmd, mark = startMarked(t, "run", workload, "-r", "1", "--warmup", "0",
		"--no-store", "--counters", "none", "--monitor", "none")
	for deadline := time.Now().Add(30 * time.Second); child == "" && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		child = measuredChildOf(mark, cmd.Process.Pid)
	}
	if child == "" {
		t.Fatalf("no measured child seen: %s", cmd.Stderr)
	}
	return cmd, mark, child
}

// measuredChildOf returns the pid of the live measured child (started as
// runner.ChildArg) carrying mark whose parent is pid; not a tool the
// parent ran to take its fingerprint.
func measuredChildOf(mark string, pid int) string {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), mark) {
			continue
		}
		if cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); !strings.Contains(string(cl), runner.ChildArg) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
				return e.Name()
			}
		}
	}
	return ""
}

// threadSwitches reads each thread's voluntary plus involuntary context
// switches.
func threadSwitches(pid string) map[string]int {
	return perThread(pid, "status", func(s string) int {
		n := 0
		for _, line := range strings.Split(s, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				x, _ := strconv.Atoi(strings.TrimSpace(v))
				n += x
			}
		}
		return n
	})
}

// threadTicks reads each thread's user plus system time in clock ticks
// (fields 14 and 15 of /proc/PID/task/TID/stat).
func threadTicks(pid string) map[string]int {
	return perThread(pid, "stat", func(s string) int {
		// After the comm: field 3 (state) is f[0], so field k is f[k-3].
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			return 0
		}
		u, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		return u + st
	})
}

// perThread reads file of each thread of pid and keeps what read makes
// of it, by thread id; a thread gone meanwhile is left out.
func perThread(pid, file string, read func(string) int) map[string]int {
	m := map[string]int{}
	tasks, _ := os.ReadDir(filepath.Join("/proc", pid, "task"))
	for _, tk := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc", pid, "task", tk.Name(), file))
		if err == nil {
			m[tk.Name()] = read(string(b))
		}
	}
	return m
}

// TestPipeThreadModeQuiet guards pipe's thread mode, where both workers
// are raw threads of the measured child (sys.StartRawThread), as perf's
// are pthreads: the two switch at every round trip, and the child's other
// threads, the Go runtime's, not at all, since the thread that started
// the workers waits in the futex of their exit with its P given back and
// sysmon sleeps (with the workers on locked goroutines, sysmon looked in
// every 10 ms, the ticker that moves an unpinned pair; see
// TestPipeProcessModeQuiet).
func TestPipeThreadModeQuiet(t *testing.T) {
	cmd, _, child := startMeasured(t, "pipe:mode=thread,loops=1200000,cpus=same")
	time.Sleep(300 * time.Millisecond)
	before, t0 := threadSwitches(child), time.Now()
	time.Sleep(700 * time.Millisecond)
	after, el := threadSwitches(child), time.Since(t0)
	interrupt(t, cmd)
	var deltas []int
	for tid, a := range after {
		if b, ok := before[tid]; ok {
			deltas = append(deltas, a-b)
		}
	}
	if len(deltas) < 3 {
		t.Fatalf("%d threads read in the window: the loop ended before it?", len(deltas))
	}
	slices.Sort(deltas)
	pair := deltas[len(deltas)-2:] // the ping-pong's two threads switch the most
	others := 0
	for _, d := range deltas[:len(deltas)-2] {
		others += d
	}
	t.Logf("pipe thread mode: the pair switched %v times in %v; %d other threads %d times",
		pair, el.Round(time.Millisecond), len(deltas)-2, others)
	if pair[0] < 1000 {
		t.Errorf("the ping-pong's threads switched only %v times: not inside the loop", pair)
	}
	// One switch is allowed for the read that may straddle the window's start.
	if others > 1 {
		t.Errorf("the child's other threads switched %d times in %v of window, want none", others, el.Round(time.Millisecond))
	}
}

// TestPipeProcessModeQuiet guards pipe's process mode, where both
// workers are forked tasks with no runtime: the measured child only waits
// in wait4 for the window, its P given back, so none of its threads,
// sysmon included, wakes inside it. A thread that wakes every 10 ms beside
// an unpinned ping-pong changes where the scheduler puts the pair (a C
// ping-pong: 42 us/op with such a ticker, 52 without), which is why the
// floor here is not sysmon's but none.
func TestPipeProcessModeQuiet(t *testing.T) {
	cmd, mark, child := startMeasured(t, "pipe:mode=process,loops=1500000,cpus=same")
	time.Sleep(300 * time.Millisecond)
	before, t0 := threadSwitches(child), time.Now()
	worker := grandchild(mark, cmd.Process.Pid)
	wBefore := threadSwitches(worker)
	time.Sleep(700 * time.Millisecond)
	after, el := threadSwitches(child), time.Since(t0)
	wAfter := threadSwitches(worker)
	interrupt(t, cmd)
	n, total := 0, 0
	for tid, a := range after {
		if b, ok := before[tid]; ok {
			total += a - b
			n++
		}
	}
	ws := 0
	for tid, a := range wAfter {
		ws += a - wBefore[tid]
	}
	t.Logf("pipe process mode: the measured child's %d threads switched %d times in %v of window; a worker %d times",
		n, total, el.Round(time.Millisecond), ws)
	if n == 0 || worker == "" || ws < 1000 {
		t.Fatalf("not inside the window: %d threads of the child read, worker %q switched %d times", n, worker, ws)
	}
	// One wake-up may straddle the window's start: sysmon's last look
	// before it finds every P idle and sleeps.
	if total > 1 {
		t.Errorf("the measured child's threads switched %d times inside the window, want at most 1", total)
	}
}

// TestMessagingForkerQuiet guards messaging's process mode: its workers
// are forked, then woken and reaped, by a single-threaded lean child of
// the measured child (the forker, as perf's main process), so that they
// inherit none of the Go runtime's scheduling history; inside the window
// the measured child's own threads wait without switching.
func TestMessagingForkerQuiet(t *testing.T) {
	const fds = 20
	cmd, _, child := startMeasured(t, "messaging:ipc=pipe,groups=1,loops=4000")
	time.Sleep(300 * time.Millisecond)
	before, t0 := threadSwitches(child), time.Now()
	forkers := childrenOf(child)
	var workers []string
	forkerThreads := 0
	if len(forkers) == 1 {
		workers = childrenOf(forkers[0])
		forkerThreads = len(perThread(forkers[0], "stat", func(string) int { return 0 }))
	}
	time.Sleep(700 * time.Millisecond)
	after, el := threadSwitches(child), time.Since(t0)
	stillForker := len(forkers) == 1 && len(childrenOf(forkers[0])) == 2*fds
	interrupt(t, cmd)
	total := 0
	for tid, a := range after {
		if b, ok := before[tid]; ok {
			total += a - b
		}
	}
	t.Logf("messaging process mode: the measured child's children %v, the forker's threads %d and children %d; the child's %d threads switched %d times in %v of window",
		forkers, forkerThreads, len(workers), len(after), total, el.Round(time.Millisecond))
	if len(forkers) != 1 || forkerThreads != 1 || len(workers) != 2*fds {
		t.Fatalf("want one single-threaded forker with %d workers: children %v, forker threads %d, its children %d", 2*fds, forkers, forkerThreads, len(workers))
	}
	if !stillForker || len(after) == 0 {
		t.Fatalf("the window ended before the second reading (%d threads read)", len(after))
	}
	if total > 1 {
		t.Errorf("the measured child's threads switched %d times inside the window, want at most 1", total)
	}
}

// childrenOf lists the live processes whose parent is pid.
func childrenOf(pid string) []string {
	var kids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if err != nil || i < 0 {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[0] != "Z" && f[1] == pid {
			kids = append(kids, e.Name())
		}
	}
	return kids
}
