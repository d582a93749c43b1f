package sysinfo

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/testenv"
)

// stat is a /proc/PID/stat line with the fields otherRunnable reads.
func stat(pid int, comm, state string, ppid int) string {
	return fmt.Sprintf("%d (%s) %s %d %d %d 0 -1 4194560 120 0 0 0 3 1 0 0 20 0 1 0 1000 10000 100\n", pid, comm, state, ppid, pid, pid)
}

// procTree writes a /proc with the given load average line, processes
// (pid → parent, comm and the state of each thread) and, when self is not
// zero, /proc/self standing for that process, as a live /proc/self does.
type proc struct {
	ppid    int
	comm    string
	threads []string // states, the first one the main thread's
}

func procTree(t *testing.T, loadavg string, self int, procs map[int]proc) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, "proc/loadavg", loadavg+"\n")
	writeFile(t, root, "sys/devices/system/cpu/online", "0-1\n")
	for pid, p := range procs {
		dirs := []string{fmt.Sprintf("proc/%d", pid)}
		if pid == self {
			dirs = append(dirs, "proc/self")
		}
		for _, d := range dirs {
			writeFile(t, root, d+"/stat", stat(pid, p.comm, p.threads[0], p.ppid))
			for i, st := range p.threads {
				writeFile(t, root, fmt.Sprintf("%s/task/%d/stat", d, pid+i), stat(pid+i, p.comm, st, p.ppid))
			}
		}
	}
	return root
}

// TestOtherRunnable counts the runnable tasks that are not kdelta's on
// fixture trees, and checks the tuning check's competition line, which
// the load average no longer decides.
func TestOtherRunnable(t *testing.T) {
	kdelta := proc{ppid: 4100, comm: "kdelta", threads: []string{"R", "S", "S", "S"}}
	cases := []struct {
		name, loadavg string
		self          int
		procs         map[int]proc
		want          string // value, or "unknown: ..." prefix
		compete       bool
	}{
		// Issue 12: kdelta's 800-thread runs have ended; the load average
		// remembers them, procs_running is 1 (kdelta itself).
		{"load average of past runs", "219.07 151.22 70.36 1/520 88123", 4242,
			map[int]proc{4242: kdelta, 1: {0, "init", []string{"S"}}}, "0", false},
		// A run in progress: kdelta's child and grandchild, busy.
		{"kdelta's children", "9.80 4.00 1.50 10/600 88123", 4242, map[int]proc{
			4242: kdelta,
			4300: {4242, "kdelta (run) x", []string{"R", "R", "R", "R", "R", "R", "R", "R"}},
			4400: {4300, "stress-ng", []string{"R"}},
			5000: {1, "sshd", []string{"S"}},
		}, "0", false},
		{"others compete", "0.50 0.30 0.10 4/300 88123", 4242, map[int]proc{
			4242: kdelta,
			999:  {1, "make", []string{"R", "R"}},
			1500: {999, "cc1", []string{"R"}},
		}, "3", true},
		// One other on two CPUs is half of them: not above.
		{"one other", "1.00 1.00 1.00 2/300 88123", 4242, map[int]proc{4242: kdelta, 999: {1, "yes", []string{"R"}}}, "1", false},
		// A capture without /proc/self: the reader is the one subtracted.
		{"no self", "11.46 5.79 2.31 8/125 10567", 0, nil, "7", true},
		{"malformed", "0.00 0.01 0.05 x/125 10567", 4242, map[int]proc{4242: kdelta}, "unknown: /proc/loadavg: field 4 is not RUNNING/TOTAL", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fp := Collect(FS{Root: procTree(t, c.loadavg, c.self, c.procs)}, Options{})
			if got := fp.OtherRunnable.String(); !strings.HasPrefix(got, c.want) {
				t.Errorf("other runnable = %#v, want %s", fp.OtherRunnable, c.want)
			}
			var compete []string
			for _, w := range Warnings(fp, nil) {
				if strings.Contains(w, "compete") {
					compete = append(compete, w)
				}
			}
			if (len(compete) > 0) != c.compete {
				t.Errorf("competition warnings %q, want one: %v", compete, c.compete)
			}
			if c.compete && !strings.HasPrefix(compete[0], c.want+" runnable tasks other than kdelta's at start, more than 50% of the 2 online CPUs") {
				t.Errorf("warning %q", compete[0])
			}
		})
	}
}

// spin starts a busy shell loop and returns its pid; detached, the loop
// runs in a subshell whose parent exits at once, so it is no longer in
// this process's tree.
func spin(t *testing.T, detached bool) int {
	t.Helper()
	script := "while :; do :; done"
	if detached {
		script = "(while :; do :; done) >/dev/null 2>&1 & echo $!"
	}
	cmd := exec.Command("sh", "-c", script)
	if !detached {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd.Process.Pid
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("detached loop: pid %q: %v", out, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// TestLiveOtherRunnable runs busy loops on this machine, as children of
// the test (kdelta's tree: not counted) and detached from it (counted),
// one more of each than there are CPUs. Other load on the machine can only
// add to the count, so the checks are bounds that hold under it.
func TestLiveOtherRunnable(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		testenv.Skip(t, "no sh(1) to run busy loops")
	}
	live := func() (own, others int, f Fact) {
		c := &collector{fs: FS{Root: "/"}, fp: &Fingerprint{}}
		dirs, _ := c.ownTaskDirs()
		if dirs == nil {
			t.Fatal("no /proc/self/stat on a live machine")
		}
		f = c.otherRunnable()
		n, err := strconv.Atoi(f.Value)
		if err != nil {
			t.Fatalf("other runnable = %#v", f)
		}
		return c.runningTasks(dirs), n, f
	}
	online := len(onlineCPUs(Collect(FS{Root: "/"}, Options{})))
	if online == 0 {
		t.Fatal("no online CPUs read")
	}
	n := online + 1
	_, before, _ := live()

	for i := 0; i < n; i++ {
		spin(t, false)
	}
	// Past exec; on a loaded machine that may take a while, so read again
	// for up to two seconds.
	var own, mine int
	var f Fact
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if own, mine, f = live(); own >= n+1 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("%d busy children: kdelta's tree has %d running tasks, others %d (%d before); %s", n, own, mine, before, f.Source)
	if own < n+1 {
		t.Errorf("kdelta's tree has %d running tasks, want at least its %d busy children and the reader", own, n)
	}
	if !strings.Contains(f.Source, "child processes") {
		t.Errorf("source %q does not count the children", f.Source)
	}

	for i := 0; i < n; i++ {
		spin(t, true)
	}
	// On a loaded machine (the tests of other packages run beside this
	// one) a loop may take a while to be past its shell's start: read
	// again for up to two seconds.
	var others int
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, others, f = live(); others >= n || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("%d busy detached loops: others %d", n, others)
	if others < n {
		t.Errorf("other runnable = %d with %d detached busy loops, want at least %d", others, n, n)
	}
	// Only the count and the CPUs are known: the competition line is the
	// one warning.
	fp := &Fingerprint{OtherRunnable: f}
	for _, u := range []*Fact{&fp.CPU.Governor, &fp.CPU.Boost, &fp.Virtualization} {
		*u = Fact{Unknown: "not read"}
	}
	fp.CPU.Online = Fact{Value: fmt.Sprintf("0-%d", online-1)}
	ws := Warnings(fp, nil)
	if len(ws) != 1 || !strings.Contains(ws[0], "other tasks compete with the runs") {
		t.Errorf("warnings %q, want the competition line", ws)
	}
}
