package knob

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/testenv"
)

// fakeMachine writes a tree with the files planShield reads first.
func fakeMachine(t *testing.T, online, mounts string) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/devices/system/cpu/online", online+"\n")
	write("proc/self/mounts", mounts)
	write("sys/fs/cgroup/unified/cgroup.controllers", "\n")
	return root
}

func TestShieldRefusals(t *testing.T) {
	v1 := "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n"
	none := "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
	for _, c := range []struct {
		name, online, mounts string
		cpus                 []int
		want                 string
	}{
		{"offline", "0-1", v1, []int{3}, "--shield 3: CPU 3 is not online (online: 0-1)"},
		{"all CPUs", "0-1", v1, []int{0, 1}, "--shield 0-1: leaves no CPU for the rest of the system (online: 0-1)"},
		{"no cpuset", "0-3", none, []int{1}, "--shield 1: no cpuset controller here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeMachine(t, c.online, c.mounts)
			_, err := Open(nil, Options{Root: root, JournalDir: t.TempDir(), Shield: c.cpus})
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("Open: %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("refusal spans lines: %q", err)
			}
		})
	}
}

func TestCPUMask(t *testing.T) {
	for _, c := range []struct {
		cpus []int
		want string
	}{{[]int{0}, "1"}, {[]int{0, 1}, "3"}, {[]int{4, 35}, "8,00000010"}} {
		if got := cpuMask(c.cpus); got != c.want {
			t.Errorf("cpuMask(%v) = %q, want %q", c.cpus, got, c.want)
		}
	}
}

// liveShield skips unless this machine can shield its last CPU, and
// returns that CPU. It leaves no shield behind: a cleanup takes down what
// a failed test left.
func liveShield(t *testing.T) int {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to shield CPUs")
	}
	online, err := readCPUList("/sys/devices/system/cpu/online")
	if err != nil || len(online) < 2 {
		testenv.Skipf(t, "needs two online CPUs (%v, %v)", online, err)
	}
	if mech, _, err := cpusetHierarchy("/"); err != nil || mech != MechanismV1 {
		testenv.Skipf(t, "needs a cgroup v1 cpuset hierarchy (%s, %v)", mech, err)
	}
	return online[len(online)-1]
}

// spin starts a busy loop that may run on any CPU and returns its pid.
func spin(t *testing.T) int {
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

func allowed(t *testing.T, pid int) []int {
	t.Helper()
	cpus, _, ok := readTask("/proc/" + strconv.Itoa(pid))
	if !ok {
		t.Fatalf("task %d unreadable", pid)
	}
	return cpus
}

func TestShieldRaiseRestore(t *testing.T) {
	cpu := liveShield(t)
	hog := spin(t)
	before := allowed(t, hog)
	dir := t.TempDir()
	s, err := Open(nil, Options{JournalDir: dir, Shield: []int{cpu}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Restore() })
	info, err := s.RaiseShield()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("shield: %s", info)
	if got := allowed(t, hog); overlaps(got, []int{cpu}) {
		t.Errorf("hog allowed on CPUs %s under a shield of CPU %d", sys.FormatCPUList(got), cpu)
	}
	if info.TasksMoved == 0 {
		t.Errorf("no task moved: %s", info)
	}
	cg := s.ShieldCgroup()
	if cg == nil {
		t.Fatal("no shield cgroup while raised")
	}
	if got, err := readCPUList(filepath.Join(cg.Dir, "cpuset.cpus")); err != nil || !overlaps(got, []int{cpu}) || len(got) != 1 {
		t.Errorf("shield cpuset.cpus %v (%v), want %d", got, err, cpu)
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ShieldCpuset, SystemCpuset} {
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup/cpuset", d)); err == nil {
			t.Errorf("%s still there after Restore", d)
		}
	}
	if got := allowed(t, hog); sys.FormatCPUList(got) != sys.FormatCPUList(before) {
		t.Errorf("hog allowed on %s after Restore, was %s", sys.FormatCPUList(got), sys.FormatCPUList(before))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("journal left after Restore: %v", ents)
	}
}

// TestShieldRecover leaves a raised shield to its journal, as a kdelta
// killed mid-run does, and has Recover take it down.
func TestShieldRecover(t *testing.T) {
	cpu := liveShield(t)
	hog := spin(t)
	before := allowed(t, hog)
	dir := t.TempDir()
	s, err := Open(nil, Options{JournalDir: dir, Shield: []int{cpu}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Restore() })
	if _, err := s.RaiseShield(); err != nil {
		t.Fatal(err)
	}
	// The owner dies: its lock goes, its shield stays.
	s.journal.release()
	s.closed = true
	time.Sleep(20 * time.Millisecond)
	done, holders, err := Recover(dir)
	if err != nil || len(holders) != 0 || len(done) != 1 {
		t.Fatalf("Recover: %v, holders %v, done %v", err, holders, done)
	}
	r := done[0]
	if r.Err != nil || r.Shield == nil || r.Shield.TasksBack == 0 {
		t.Fatalf("recovery: %+v", r)
	}
	t.Logf("%s", strings.Join(r.Done(), "\n"))
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup/cpuset", ShieldCpuset)); err == nil {
		t.Errorf("shield cpuset still there after Recover")
	}
	if got := allowed(t, hog); sys.FormatCPUList(got) != sys.FormatCPUList(before) {
		t.Errorf("hog allowed on %s after Recover, was %s", sys.FormatCPUList(got), sys.FormatCPUList(before))
	}
}

// TestShieldRaceLeavesOthers: a shield cpuset made by someone else
// between Open and RaiseShield stops the raise, and taking this shield
// down leaves that cpuset alone.
func TestShieldRaceLeavesOthers(t *testing.T) {
	cpu := liveShield(t)
	s, err := Open(nil, Options{JournalDir: t.TempDir(), Shield: []int{cpu}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Restore() })
	other := filepath.Join("/sys/fs/cgroup/cpuset", ShieldCpuset)
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(other) })
	if _, err := s.RaiseShield(); err == nil || !strings.Contains(err.Error(), "made meanwhile") {
		t.Fatalf("RaiseShield beside another's cpuset: %v", err)
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the other cpuset was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup/cpuset", SystemCpuset)); err == nil {
		t.Errorf("%s left after the failed raise", SystemCpuset)
	}
	if n := len(readTasks("/sys/fs/cgroup/cpuset/tasks")); n < 10 {
		t.Errorf("only %d tasks back in the root cpuset", n)
	}
}

// TestShieldOpenAfterKill: a shield left by a kdelta that is gone is
// taken down by the next Open, which then shields from the machine's own
// state.
func TestShieldOpenAfterKill(t *testing.T) {
	cpu := liveShield(t)
	dir := t.TempDir()
	old, err := Open(nil, Options{JournalDir: dir, Shield: []int{cpu}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Restore() })
	if _, err := old.RaiseShield(); err != nil {
		t.Fatal(err)
	}
	old.journal.release()
	old.closed = true
	s, err := Open(nil, Options{JournalDir: dir, Shield: []int{cpu}})
	if err != nil {
		t.Fatalf("Open beside a stale shield: %v", err)
	}
	t.Cleanup(func() { s.Restore() })
	for _, ta := range s.shield.rec.Tasks {
		if ta.TID == os.Getpid() && ta.CPUs != sys.FormatCPUList(allowedNow(t)) {
			t.Errorf("snapshot holds the stale shield's mask %s", ta.CPUs)
		}
	}
	if _, err := s.RaiseShield(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("journals left: %v", ents)
	}
}

func allowedNow(t *testing.T) []int {
	t.Helper()
	return allowed(t, os.Getpid())
}
