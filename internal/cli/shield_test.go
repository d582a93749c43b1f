package cli_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/cli"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

const cpusetRoot = "/sys/fs/cgroup/cpuset"

// needShield skips unless this machine can shield a CPU with a cgroup v1
// cpuset, and returns the CPU to shield: the last online one. Whatever
// the test does, its cleanup takes down a shield left in its journal
// directory and fails the test if a kdelta cpuset is still there.
func needShield(t *testing.T) (cpu int, jdir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to shield CPUs")
	}
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		testenv.Skipf(t, "online CPUs unknown: %v", err)
	}
	online, err := sys.ParseCPUList(string(b))
	if err != nil || len(online) < 2 {
		testenv.Skipf(t, "needs two online CPUs, has %s", strings.TrimSpace(string(b)))
	}
	if _, err := os.Stat(filepath.Join(cpusetRoot, "cpuset.cpu_exclusive")); err != nil {
		testenv.Skipf(t, "needs a cgroup v1 cpuset hierarchy at %s: %v", cpusetRoot, err)
	}
	for _, n := range []string{knob.ShieldCpuset, knob.SystemCpuset} {
		if _, err := os.Stat(filepath.Join(cpusetRoot, n)); err == nil {
			t.Fatalf("%s/%s exists before the test: another shield is up", cpusetRoot, n)
		}
	}
	jdir = ownJournal(t)
	t.Cleanup(func() {
		if _, _, err := knob.Recover(jdir); err != nil {
			t.Errorf("cleanup: recover: %v", err)
		}
		for _, n := range []string{knob.ShieldCpuset, knob.SystemCpuset} {
			if _, err := os.Stat(filepath.Join(cpusetRoot, n)); err == nil {
				t.Errorf("cleanup: %s/%s left behind", cpusetRoot, n)
			}
		}
	})
	return online[len(online)-1], jdir
}

// startHog starts a busy loop that may run on any CPU, as stress-ng --cpu
// 1 unpinned does, and returns its pid.
func startHog(t *testing.T) int {
	t.Helper()
	c := exec.Command("sh", "-c", "while :; do :; done")
	if err := c.Start(); err != nil {
		testenv.Skipf(t, "sh: %v", err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
	})
	return c.Process.Pid
}

// lastCPU reads the CPU task pid last ran on: field 39 of /proc/PID/stat.
func lastCPU(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	// Fields after the name start at field 3.
	if len(f) < 39-2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[39-3])
	return n, err == nil
}

// runTime is the nanoseconds task tid has run, from /proc/TID/schedstat.
func runTime(tid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	return n, err == nil
}

type cpuSample struct {
	at  time.Time
	cpu int
}

// TestShieldKeepsHogOff is acceptance (a): CPU hogs started before the
// run never run on the shielded CPU while a run is under way, sampled
// from their /proc/PID/stat every millisecond or so. There are two, one
// per CPU of a two-CPU machine, so that before the session one of them
// is seen on the CPU to be shielded: the samples can tell.
func TestShieldKeepsHogOff(t *testing.T) {
	cpu, _ := needShield(t)
	hogs := []int{startHog(t), startHog(t)}
	out := filepath.Join(t.TempDir(), "s.json")
	var (
		mu       sync.Mutex
		samples  []cpuSample
		inShield []cpuSample       // the tasks in the shield's cpuset
		ranIn    = map[int]int64{} // task: its run time when last seen in the shield
		grew     = map[int]int{}   // task: how often its run time grew there
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, hog := range hogs {
				if c, ok := lastCPU(hog); ok {
					mu.Lock()
					samples = append(samples, cpuSample{time.Now(), c})
					mu.Unlock()
				}
			}
			// The measured tasks: whatever is in the shield's cpuset. A
			// task's CPU field is where it last ran, which for a task just
			// moved in can be before the move: a task counts once it has
			// run (its run time grew) twice since it was first seen there,
			// since the first interval can straddle the move (a CI run saw
			// one sample of 1,222 on the other CPU).
			// Under cgroup v1 the thread that starts a child joins the
			// shield for the fork and leaves it again (sys.joinCgroup);
			// with cli.Main in this process that thread is the test's
			// own, and may be read in the shield's list and then on the
			// other CPU (a CI run saw 1 sample of 2,681): not a measured
			// task.
			b, _ := os.ReadFile(filepath.Join(cpusetRoot, knob.ShieldCpuset, "tasks"))
			for _, f := range strings.Fields(string(b)) {
				tid, _ := strconv.Atoi(f)
				if _, err := os.Stat(filepath.Join("/proc/self/task", f)); err == nil {
					continue
				}
				ran, ok := runTime(tid)
				if !ok {
					continue
				}
				prev, seen := ranIn[tid]
				ranIn[tid] = ran
				if !seen || ran == prev {
					continue
				}
				if grew[tid]++; grew[tid] < 2 {
					continue
				}
				if c, ok := lastCPU(tid); ok {
					mu.Lock()
					inShield = append(inShield, cpuSample{time.Now(), c})
					mu.Unlock()
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	// Samples before the run show where the hog goes unshielded.
	time.Sleep(200 * time.Millisecond)
	var stdout, stderr strings.Builder
	args := []string{"run", "--no-store", "syscall:calls=2000000", "-r", "5", "--warmup", "1", "--shield", strconv.Itoa(cpu), "--counters", "none", "--monitor", "none", "-o", out}
	code := cli.Main(context.Background(), args, &stdout, &stderr)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("kdelta %v: exit %d: %s", args, code, stderr.String())
	}
	set, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if set.Env == nil || set.Env.Shield == nil || set.Env.Shield.CPUs != strconv.Itoa(cpu) {
		t.Fatalf("the fingerprint does not record the shield: %+v", set.Env)
	}
	t.Logf("shield: %s", set.Env.Shield)
	inRun := func(at time.Time) bool {
		for _, b := range set.Benchmarks {
			for _, r := range b.Runs {
				if r.Info["shield"] == "" {
					t.Fatalf("run %d of %s has no shield in its Info: %v", r.Index, b.Key(), r.Info)
				}
				end := r.Start.Add(time.Duration(r.WallSec * float64(time.Second)))
				if !at.Before(r.Start) && !at.After(end) {
					return true
				}
			}
		}
		return false
	}
	// The measured tasks, while a run is under way (a child is moved
	// into the shield as it starts, before its window).
	measured := map[int]int{}
	for _, s := range inShield {
		if inRun(s.at) {
			measured[s.cpu]++
		}
	}
	var within, on, before, beforeOn int
	perCPU := map[int]int{}
	for _, s := range samples {
		in := inRun(s.at)
		switch {
		case in:
			within++
			perCPU[s.cpu]++
			if s.cpu == cpu {
				on++
			}
		case s.at.Before(set.Created):
			before++
			if s.cpu == cpu {
				beforeOn++
			}
		}
	}
	t.Logf("hogs' samples during the runs: %d, by CPU %v; on CPU %d: %d. Before the session: %d, on CPU %d: %d",
		within, perCPU, cpu, on, before, cpu, beforeOn)
	t.Logf("samples of the tasks in the shield's cpuset, by CPU: %v", measured)
	if len(measured) != 1 || measured[cpu] == 0 {
		t.Errorf("the measured tasks ran on CPUs %v, want only CPU %d", measured, cpu)
	}
	if within < 100 {
		t.Fatalf("only %d samples of the hog during the runs", within)
	}
	if beforeOn == 0 {
		t.Errorf("before the session no hog was seen on CPU %d (%d samples): the samples cannot tell", cpu, before)
	}
	if on > 0 {
		t.Errorf("a hog ran on the shielded CPU %d in %d of %d samples during the runs", cpu, on, within)
	}
}

// TestShieldLowersCV is acceptance (b): with hogs running, the run-to-run
// CV of syscall and pipe:cpus=same under --shield is below their CV
// without it, in sets interleaved in the same session. There are two
// hogs, one per CPU of a two-CPU machine: with one, an unshielded run was
// often put on the free CPU and was as quiet as a shielded one (CI once
// saw syscall at 0.96% unshielded and 2.56% shielded).
func TestShieldLowersCV(t *testing.T) {
	cpu, _ := needShield(t)
	// Runs of a quarter second, whatever a system call costs here.
	workloads := []string{fmt.Sprintf("syscall:calls=%d", callsFor(t, 250*time.Millisecond)), "pipe:loops=20000,cpus=same"}
	startHog(t)
	startHog(t)
	dir := t.TempDir()
	values := map[bool]map[string][]float64{false: {}, true: {}}
	for round := 0; round < 3; round++ {
		for _, shielded := range []bool{false, true} {
			out := filepath.Join(dir, fmt.Sprintf("r%d-%v.json", round, shielded))
			args := append([]string{"run", "--no-store", "-r", "4", "--warmup", "1", "--counters", "none", "--monitor", "none", "-o", out}, workloads...)
			if shielded {
				args = append(args, "--shield", strconv.Itoa(cpu))
			}
			var stdout, stderr strings.Builder
			if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
				t.Fatalf("kdelta %v: exit %d: %s", args, code, stderr.String())
			}
			set, err := result.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range set.Benchmarks {
				m := b.Metrics[0].Name
				values[shielded][b.Workload] = append(values[shielded][b.Workload], b.Values(m)...)
			}
		}
	}
	for _, w := range []string{"syscall", "pipe"} {
		off, on := stats.Summarize(values[false][w]), stats.Summarize(values[true][w])
		t.Logf("%s: CV without the shield %.2f%% (n=%d, mean %.4g), with --shield %d %.2f%% (n=%d, mean %.4g)",
			w, off.CV, off.N, off.Mean, cpu, on.CV, on.N, on.Mean)
		if on.CV >= off.CV {
			t.Errorf("%s: CV under --shield %.2f%% is not below the CV without it, %.2f%%", w, on.CV, off.CV)
		}
	}
}

// A machineState is what a shield changes and must put back: every
// task's affinity and cpuset, the cpuset tree, every IRQ's affinity.
type machineState struct {
	tasks   map[string]taskState // by "TID@starttime"
	cpusets map[string]string    // cpuset path: cpus, mems, cpu_exclusive
	counts  map[string]int       // cpuset path: tasks
	irqs    map[string]string    // file: affinity
}

type taskState struct{ comm, cpus, cpuset string }

func snapshot(t *testing.T) machineState {
	t.Helper()
	st := machineState{tasks: map[string]taskState{}, cpusets: map[string]string{}, counts: map[string]int{}, irqs: map[string]string{}}
	dirs, _ := filepath.Glob("/proc/[0-9]*/task/[0-9]*")
	for _, d := range dirs {
		stat, err1 := os.ReadFile(d + "/stat")
		status, err2 := os.ReadFile(d + "/status")
		cs, err3 := os.ReadFile(d + "/cpuset")
		if err1 != nil || err2 != nil || err3 != nil {
			continue // gone meanwhile
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat[i+1:]))
		var ts taskState
		ts.comm = string(stat[strings.IndexByte(string(stat), '(')+1 : i])
		sc := bufio.NewScanner(strings.NewReader(string(status)))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
				ts.cpus = strings.TrimSpace(v)
			}
		}
		ts.cpuset = strings.TrimSpace(string(cs))
		st.tasks[filepath.Base(d)+"@"+f[19]] = ts
	}
	filepath.WalkDir(cpusetRoot, func(p string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		read := func(n string) string {
			b, _ := os.ReadFile(filepath.Join(p, n))
			return strings.TrimSpace(string(b))
		}
		st.cpusets[p] = fmt.Sprintf("cpus=%s mems=%s cpu_exclusive=%s", read("cpuset.cpus"), read("cpuset.mems"), read("cpuset.cpu_exclusive"))
		st.counts[p] = len(strings.Fields(read("tasks")))
		return nil
	})
	irqs, _ := filepath.Glob("/proc/irq/[0-9]*/smp_affinity_list")
	for _, p := range append(irqs, "/proc/irq/default_smp_affinity") {
		if b, err := os.ReadFile(p); err == nil {
			st.irqs[p] = strings.TrimSpace(string(b))
		}
	}
	return st
}

// sameMachine compares two snapshots: every task in both has the same
// affinity and cpuset, the cpuset tree has the same cpusets with the same
// settings, and the same tasks where the tasks that came or went allow
// it, and every IRQ in both has the same affinity.
func sameMachine(t *testing.T, when string, a, b machineState) {
	t.Helper()
	common, diffs := 0, 0
	for k, x := range a.tasks {
		y, ok := b.tasks[k]
		if !ok {
			continue
		}
		common++
		if x.cpus != y.cpus || x.cpuset != y.cpuset {
			diffs++
			if diffs <= 10 {
				t.Errorf("%s: task %s (%s): affinity %s in cpuset %s, was %s in %s", when, k, x.comm, y.cpus, y.cpuset, x.cpus, x.cpuset)
			}
		}
	}
	if diffs > 10 {
		t.Errorf("%s: %d tasks differ in all", when, diffs)
	}
	if common < len(a.tasks)/2 {
		t.Errorf("%s: only %d of %d tasks still there to compare", when, common, len(a.tasks))
	}
	for p, x := range a.cpusets {
		if y, ok := b.cpusets[p]; !ok || x != y {
			t.Errorf("%s: cpuset %s: %q, was %q", when, p, y, x)
		}
	}
	for p := range b.cpusets {
		if _, ok := a.cpusets[p]; !ok {
			t.Errorf("%s: cpuset %s was not there before", when, p)
		}
	}
	// Every task present before and after is in its cpuset again; the
	// counts differ by the tasks that came and went, which the census
	// of each snapshot tells.
	census := func(s machineState) map[string]int {
		m := map[string]int{}
		for _, ts := range s.tasks {
			m[filepath.Join(cpusetRoot, ts.cpuset)]++
		}
		return m
	}
	ca, cb := census(a), census(b)
	for p := range a.cpusets {
		t.Logf("%s: cpuset %s: %d tasks before, %d after (census %d, %d)", when, p, a.counts[p], b.counts[p], ca[p], cb[p])
		if p != cpusetRoot && a.counts[p] != b.counts[p] {
			t.Errorf("%s: cpuset %s holds %d tasks, held %d", when, p, b.counts[p], a.counts[p])
		}
	}
	var irqDiffs []string
	for p, x := range a.irqs {
		if y, ok := b.irqs[p]; ok && x != y {
			irqDiffs = append(irqDiffs, fmt.Sprintf("%s=%s, was %s", p, y, x))
		}
	}
	sort.Strings(irqDiffs)
	for _, d := range irqDiffs {
		t.Errorf("%s: %s", when, d)
	}
	t.Logf("%s: %d tasks compared (%d before, %d after), %d cpusets, %d IRQ files", when, common, len(a.tasks), len(b.tasks), len(a.cpusets), len(a.irqs))
}

// TestShieldRestoresMachine is acceptance (c): after a shielded run, and
// after a shielded run killed with SIGKILL followed by the next kdelta
// start, every task's affinity and cpuset, the cpuset tree and every IRQ
// affinity are what they were.
func TestShieldRestoresMachine(t *testing.T) {
	for _, how := range []string{"finished", "SIGINT", "SIGKILL, kdelta list", "SIGKILL, kdelta restore"} {
		t.Run(how, func(t *testing.T) {
			cpu, jdir := needShield(t)
			startHog(t)
			// A task pinned by hand, whose mask a cpuset move would lose.
			pinned := exec.Command("taskset", "-c", "0", "sleep", "60")
			if err := pinned.Start(); err != nil {
				testenv.Skipf(t, "taskset: %v", err)
			}
			t.Cleanup(func() { pinned.Process.Kill(); pinned.Wait() })
			time.Sleep(50 * time.Millisecond)
			before := snapshot(t)
			out := filepath.Join(t.TempDir(), "s.json")
			args := []string{"run", "--no-store", "syscall:calls=1000000", "-r", "30", "--shield", strconv.Itoa(cpu), "--counters", "none", "--monitor", "none", "-o", out}
			if how == "finished" {
				args[4] = "2"
				c := exec.Command(kdeltaBinary(t), args...)
				if b, err := c.CombinedOutput(); err != nil {
					t.Fatalf("kdelta %v: %v: %s", args, err, b)
				}
			} else {
				cmd, mark := startMarked(t, args...)
				waitRuns(t, out, 2)
				during := snapshot(t)
				if len(during.cpusets) != len(before.cpusets)+2 {
					t.Fatalf("no shield cpusets during the run: %v", during.cpusets)
				}
				sig := syscall.SIGKILL
				if how == "SIGINT" {
					sig = syscall.SIGINT
				}
				cmd.Process.Signal(sig)
				cmd.Wait()
				waitNoSurvivors(t, mark, cmd.Process.Pid)
				if sig == syscall.SIGKILL {
					if js := journalsIn(jdir); len(js) != 1 {
						t.Fatalf("journal after SIGKILL: %v", js)
					}
					next := strings.Fields(strings.TrimPrefix(how, "SIGKILL, kdelta "))
					c := exec.Command(kdeltaBinary(t), next...)
					b, err := c.CombinedOutput()
					if err != nil {
						t.Fatalf("kdelta %v after SIGKILL: %v: %s", next, err, b)
					}
					want := "took down the CPU shield on " + strconv.Itoa(cpu) + " (cgroup v1 cpuset) left by kdelta pid " + strconv.Itoa(cmd.Process.Pid)
					if !strings.Contains(string(b), want) {
						t.Errorf("kdelta %v does not say it took the shield down (%q): %s", next, want, b)
					}
				}
			}
			if js := journalsIn(jdir); len(js) != 0 {
				t.Errorf("journal left: %v", js)
			}
			sameMachine(t, "after "+how, before, snapshot(t))
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pinned.Process.Pid)); !strings.Contains(string(b), "Cpus_allowed_list:\t0\n") {
				t.Errorf("the task pinned to CPU 0 lost its mask: %s", b)
			}
		})
	}
}

// TestShieldRefusals: where a shield cannot be, kdelta says why in one
// line and exits 2 before anything runs or any cpuset is made.
func TestShieldRefusals(t *testing.T) {
	bin := kdeltaBinary(t)
	// A copy that another user may run, for the refusal of non-root.
	dir, err := os.MkdirTemp("", "kdelta-shield-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "kdelta")
	if err := os.WriteFile(open, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("/sys/devices/system/cpu/online")
	online, err := sys.ParseCPUList(string(b))
	if err != nil {
		t.Fatal(err)
	}
	all, last := sys.FormatCPUList(online), strconv.Itoa(online[len(online)-1])
	for _, c := range []struct {
		name   string
		args   []string
		nobody bool
		want   string
	}{
		{"every CPU", []string{"--shield", all}, false, "kdelta: --shield " + all + ": leaves no CPU for the rest of the system (online: " + all + ")"},
		{"offline", []string{"--shield", "4095"}, false, "kdelta: --shield 4095: CPU 4095 is not online (online: " + all + ")"},
		{"cpus outside", []string{"--shield", last, "--cpus", "0"}, false, "kdelta: --cpus 0: CPU 0 is outside --shield " + last + ", where the runs go"},
		{"not root", []string{"--shield", last}, true, "kdelta: --shield " + last + ": needs root (it moves every task and IRQ of the machine off the CPUs)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ownJournal(t)
			out := filepath.Join(t.TempDir(), "s.json")
			cmd := exec.Command(open, append([]string{"run", "--no-store", "syscall:calls=1000", "-r", "1", "-o", out}, c.args...)...)
			if c.nobody {
				if os.Geteuid() != 0 {
					testenv.Skip(t, "needs root to run kdelta as another user")
				}
				if _, err := os.Stat(filepath.Join(cpusetRoot, "cpuset.cpus")); err != nil {
					testenv.Skipf(t, "no cgroup v1 cpuset hierarchy: the refusal would name that first: %v", err)
				}
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_STATE_HOME="+dir)
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if got := strings.TrimSuffix(stderr.String(), "\n"); got != c.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a result set was written: something ran")
			}
			for _, n := range []string{knob.ShieldCpuset, knob.SystemCpuset} {
				if _, err := os.Stat(filepath.Join(cpusetRoot, n)); err == nil {
					t.Errorf("%s made by a refused shield", n)
				}
			}
		})
	}
}

// TestShieldCgroupV2 shields a CPU where cpuset is on cgroup v2: in a
// guest booted by kdelta vm (two vCPUs), a kdelta inside runs syscall
// under --shield 1 twice. Each must make the isolated partition, move
// tasks off the CPU (the count is read from its "CPU shield" line), run,
// and take the partition down again, or the second would find it there
// and refuse.
func TestShieldCgroupV2(t *testing.T) {
	kernel := vmKernel(t)
	if os.Getenv("KDELTA_TEST_KERNEL") == "" {
		// vmKernel takes the last kernel cached, of any architecture:
		// this test needs the host's.
		home, _ := os.UserHomeDir()
		found, _ := filepath.Glob(filepath.Join(home, ".cache", "kdelta", "kernels", "*-"+runtime.GOARCH, "boot", "vmlinuz-*"))
		if len(found) == 0 {
			testenv.Skipf(t, "no %s test kernel cached (scripts/vm-kernel.sh)", runtime.GOARCH)
		}
		kernel = found[len(found)-1]
	}
	bin := kdeltaBinary(t)
	out := t.TempDir()
	inner := "command:cmd='/proc/self/exe run --no-store syscall:calls=100000 -r 1 --warmup 0 --shield 1 --counters none --monitor none',regex='cgroup v2 isolated partition; tasks (\\d+) moved'"
	// The whole kdelta is the guest's /init, so that the guest runs it
	// again as a command (the lean kdelta-guest runs nothing but the job).
	cmd := exec.Command(bin, "vm", "--kernel", kernel, "--cpus", "2", "--guest-binary", bin, "--no-store", "-o", out, "--", "run", "-r", "2", "--warmup", "0", inner)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta vm: %v\n%s", err, b)
	}
	sets, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(sets) != 1 {
		t.Fatalf("result sets %v\n%s", sets, b)
	}
	set, err := result.Load(sets[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "the kernel keeps") {
			t.Logf("guest: %s", strings.TrimSpace(l))
		}
	}
	runs := set.Benchmarks[0].Measured()
	if len(runs) != 2 {
		t.Fatalf("%d runs of the shielded kdelta in the guest, want 2\n%s", len(runs), b)
	}
	for i, r := range runs {
		if r.Status != result.StatusOK {
			t.Errorf("run %d: %s: %s", i+1, r.Status, r.Reason)
			continue
		}
		moved, ok := r.Values["value"]
		t.Logf("guest run %d: tasks moved off CPU 1 by the isolated partition: %v", i+1, moved)
		if !ok || moved < 1 {
			t.Errorf("run %d: no task moved (%v, %v)", i+1, moved, ok)
		}
	}
}

// TestShieldAB: kdelta ab --shield holds the shield over every variant,
// each set's fingerprint and every run recording it.
func TestShieldAB(t *testing.T) {
	cpu, jdir := needShield(t)
	prefix := filepath.Join(t.TempDir(), "ab")
	var stdout, stderr strings.Builder
	args := []string{"ab", "--no-store", "-r", "2", "--warmup", "1", "--shield", strconv.Itoa(cpu), "--counters", "none", "--monitor", "none",
		"--variant", "a:", "--variant", "b:", "-o", prefix, "--", "syscall:calls=200000"}
	if code := cli.Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("kdelta %v: exit %d: %s", args, code, stderr.String())
	}
	for _, v := range []string{"a", "b"} {
		set, err := result.Load(prefix + "-" + v + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if set.Env == nil || set.Env.Shield == nil || set.Env.Shield.CPUs != strconv.Itoa(cpu) || set.Env.Cgroup.Cpuset.Value != strconv.Itoa(cpu) {
			t.Errorf("variant %s: fingerprint without the shield: %+v", v, set.Env)
		}
		for _, r := range set.Benchmarks[0].Runs {
			if !strings.HasPrefix(r.Info["shield"], strconv.Itoa(cpu)+" (cgroup v1 cpuset;") || r.Info["cpus_allowed"] != strconv.Itoa(cpu) {
				t.Errorf("variant %s run %d: Info %v", v, r.Index, r.Info)
			}
		}
	}
	if js := journalsIn(jdir); len(js) != 0 {
		t.Errorf("journal left: %v", js)
	}
}
