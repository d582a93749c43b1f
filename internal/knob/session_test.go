package knob

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
)

// helperEnv makes the test binary a kdelta stand-in that opens a session
// on a fake tree, applies a setting, says so, and waits to be killed.
const helperEnv = "KNOB_TEST_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(helper(spec))
	}
	os.Exit(m.Run())
}

// helper: spec is ROOT|JOURNALDIR|SETTING.
func helper(spec string) int {
	f := strings.Split(spec, "|")
	st, err := Parse(f[2])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	s, err := Open([][]Setting{{st}}, Options{Root: f[0], JournalDir: f[1]})
	if err == nil {
		err = s.Apply([]Setting{st})
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	os.Stdout.WriteString("applied\n")
	time.Sleep(time.Minute)
	return 0
}

// fakeRoot builds a tree of knob files with the layouts of the real ones.
func fakeRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"sys/kernel/mm/transparent_hugepage/enabled":                         "always [madvise] never\n",
		"sys/module/rcutree/parameters/rcu_normal_wake_from_gp":              "1\n",
		"sys/module/m/parameters/flag":                                       "N\n",
		"proc/sys/kernel/sched_autogroup_enabled":                            "1\n",
		"sys/kernel/debug/sched/preempt":                                     "none voluntary (full) lazy \n",
		"sys/devices/system/cpu/smt/control":                                 "notsupported\n",
		"sys/devices/system/cpu/cpufreq/policy0/scaling_governor":            "schedutil\n",
		"sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors": "performance schedutil\n",
		"sys/devices/system/cpu/cpufreq/policy1/scaling_governor":            "performance\n",
		"sys/devices/system/cpu/cpufreq/policy1/scaling_available_governors": "performance schedutil\n",
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func settings(t *testing.T, ss ...string) []Setting {
	t.Helper()
	var out []Setting
	for _, s := range ss {
		st, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}

func journals(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	return m
}

func TestSessionApplyRestore(t *testing.T) {
	root, jdir := fakeRoot(t), t.TempDir()
	thp := filepath.Join(root, "sys/kernel/mm/transparent_hugepage/enabled")
	wake := filepath.Join(root, "sys/module/rcutree/parameters/rcu_normal_wake_from_gp")
	gov0 := filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy0/scaling_governor")
	gov1 := filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy1/scaling_governor")
	pre := filepath.Join(root, "sys/kernel/debug/sched/preempt")
	a := settings(t, "/sys/kernel/mm/transparent_hugepage/enabled=never", "governor=performance")
	b := settings(t, "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=0", "preempt=lazy")
	s, err := Open([][]Setting{a, b}, Options{Root: root, JournalDir: jdir, Command: []string{"kdelta", "ab"}})
	if err != nil {
		t.Fatal(err)
	}
	js := journals(t, jdir)
	if len(js) != 1 {
		t.Fatalf("journals after Open: %v", js)
	}
	var rec record
	if err := json.Unmarshal([]byte(read(t, js[0])), &rec); err != nil || rec.PID != os.Getpid() || len(rec.Knobs) != 5 {
		t.Fatalf("journal %s: %+v, %v", js[0], rec, err)
	}
	// The selected value is saved, not the list.
	if rec.Knobs[0].Value != "madvise" {
		t.Errorf("journal saved %q for THP, want madvise", rec.Knobs[0].Value)
	}
	if err := s.Apply(a); err != nil {
		t.Fatal(err)
	}
	if read(t, thp) != "never\n" || read(t, gov0) != "performance\n" || read(t, gov1) != "performance\n" || read(t, wake) != "1\n" {
		t.Errorf("after A: thp %q gov %q %q wake %q", read(t, thp), read(t, gov0), read(t, gov1), read(t, wake))
	}
	if v := s.Values(); v["governor"] != "performance" || v["sys.kernel.mm.transparent_hugepage.enabled"] != "never" {
		t.Errorf("Values after A: %v", v)
	}
	// B's environment is the machine's plus B: A's knobs go back.
	if err := s.Apply(b); err != nil {
		t.Fatal(err)
	}
	if read(t, thp) != "madvise\n" || read(t, gov0) != "schedutil\n" || read(t, gov1) != "performance\n" || read(t, wake) != "0\n" || read(t, pre) != "lazy\n" {
		t.Errorf("after B: thp %q gov %q %q wake %q preempt %q", read(t, thp), read(t, gov0), read(t, gov1), read(t, wake), read(t, pre))
	}
	if v := s.Values(); v["governor"] != "schedutil/performance" {
		t.Errorf("Values after B: governor %q", v["governor"])
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if read(t, wake) != "1\n" || read(t, pre) != "full\n" {
		t.Errorf("after Restore: wake %q preempt %q", read(t, wake), read(t, pre))
	}
	if js := journals(t, jdir); len(js) != 0 {
		t.Errorf("journal left after Restore: %v", js)
	}
	if err := s.Restore(); err != nil {
		t.Errorf("second Restore: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	root, jdir := fakeRoot(t), t.TempDir()
	if err := os.Symlink("/etc/hostname", filepath.Join(root, "sys/kernel/evil")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		set, err string
	}{
		{"/sys/kernel/nope=1", "/sys/kernel/nope: no such knob"},
		{"selinux=permissive", "SELinux is not enabled here"},
		{"smt=off", "SMT cannot be switched here"},
		{"/sys/kernel/mm/transparent_hugepage/enabled=sometimes", "bad value \"sometimes\" (/sys/kernel/mm/transparent_hugepage/enabled offers: always madvise never)"},
		{"preempt=rt", "bad value"},
		{"governor=ondemand", "this CPU offers: performance schedutil"},
		{"/sys/kernel/evil=1", "outside /sys and /proc/sys"},
	}
	for _, tt := range tests {
		st, err := Parse(tt.set)
		if err == nil {
			_, err = Open([][]Setting{{st}}, Options{Root: root, JournalDir: jdir})
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", tt.set, err, tt.err)
		}
	}
	if js := journals(t, jdir); len(js) != 0 {
		t.Errorf("a failed Open left journals: %v", js)
	}
}

// TestRecoverLeavesLiveOwners checks the lock protocol in one process:
// flock locks belong to open file descriptions, so Recover's own open of
// the journal cannot take the lock the session holds.
func TestRecoverLeavesLiveOwners(t *testing.T) {
	root, jdir := fakeRoot(t), t.TempDir()
	wake := filepath.Join(root, "sys/module/rcutree/parameters/rcu_normal_wake_from_gp")
	a := settings(t, "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=0")
	s, err := Open([][]Setting{a}, Options{Root: root, JournalDir: jdir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(a); err != nil {
		t.Fatal(err)
	}
	done, holders, err := recoverAt(jdir, root)
	if err != nil || len(done) != 0 || len(holders) != 1 || holders[0].PID != os.Getpid() {
		t.Fatalf("Recover with a live owner: done %v holders %v err %v", done, holders, err)
	}
	if read(t, wake) != "0\n" {
		t.Fatalf("Recover touched a live owner's knob: %q", read(t, wake))
	}
	// The owner dies without restoring: its lock goes with its file.
	s.journal.release()
	done, holders, err = recoverAt(jdir, root)
	if err != nil || len(done) != 1 || len(done[0].Restored) != 1 || len(holders) != 0 {
		t.Fatalf("Recover after the owner died: done %+v holders %v err %v", done, holders, err)
	}
	if read(t, wake) != "1\n" {
		t.Errorf("after Recover: %q, want 1", read(t, wake))
	}
	if js := journals(t, jdir); len(js) != 0 {
		t.Errorf("journal left after Recover: %v", js)
	}
	if l := done[0].Lines(); len(l) != 1 || !strings.Contains(l[0], "restored rcutree.rcu_normal_wake_from_gp=1") {
		t.Errorf("Lines: %q", l)
	}
}

func TestOpenRefusesKnobHeldByRunningKdelta(t *testing.T) {
	root, jdir := fakeRoot(t), t.TempDir()
	wake := filepath.Join(root, "sys/module/rcutree/parameters/rcu_normal_wake_from_gp")
	// Another kdelta's journal, locked as if its owner were alive.
	rec := record{Schema: JournalSchema, PID: 1, Knobs: []Entry{{Key: "rcutree.rcu_normal_wake_from_gp", Path: wake, Value: "1"}}}
	b, _ := json.Marshal(rec)
	p := filepath.Join(jdir, "1.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sys.TryLock(f); err != nil {
		t.Fatal(err)
	}
	_, err = Open([][]Setting{settings(t, "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp=0")}, Options{Root: root, JournalDir: jdir})
	if err == nil || !strings.Contains(err.Error(), "kdelta pid 1 is changing it now") {
		t.Errorf("Open of a held knob: %v", err)
	}
}

// TestSIGKILLedOwnerIsRecovered kills a real process holding a journal
// and a changed knob: the kernel drops its lock, and Recover restores.
func TestSIGKILLedOwnerIsRecovered(t *testing.T) {
	root, jdir := fakeRoot(t), t.TempDir()
	thp := filepath.Join(root, "sys/kernel/mm/transparent_hugepage/enabled")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"="+root+"|"+jdir+"|/sys/kernel/mm/transparent_hugepage/enabled=never")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 8)
	if n, _ := out.Read(buf); string(buf[:n]) != "applied\n" {
		t.Fatalf("helper said %q", buf[:n])
	}
	if read(t, thp) != "never\n" {
		t.Fatalf("helper did not apply: %q", read(t, thp))
	}
	if done, holders, _ := recoverAt(jdir, root); len(done) != 0 || len(holders) != 1 || holders[0].PID != cmd.Process.Pid {
		t.Fatalf("Recover while the helper lives: %v %v", done, holders)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	done, _, err := recoverAt(jdir, root)
	if err != nil || len(done) != 1 || done[0].PID != cmd.Process.Pid || done[0].Err != nil {
		t.Fatalf("Recover after SIGKILL: %+v, %v", done, err)
	}
	if read(t, thp) != "madvise\n" {
		t.Errorf("after Recover: %q, want madvise", read(t, thp))
	}
	if _, err := os.Stat(filepath.Join(jdir, strconv.Itoa(cmd.Process.Pid)+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal of the killed helper still there: %v", err)
	}
}

func TestRecoverMissingDir(t *testing.T) {
	done, holders, err := Recover(filepath.Join(t.TempDir(), "none"))
	if done != nil || holders != nil || err != nil {
		t.Errorf("Recover of a missing dir: %v %v %v", done, holders, err)
	}
}

func TestJournalDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if d, _ := JournalDir(); d != "/x/state/kdelta/restore.d" {
		t.Errorf("with XDG_STATE_HOME: %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := JournalDir(); d != "/home/u/.local/state/kdelta/restore.d" {
		t.Errorf("without XDG_STATE_HOME: %s", d)
	}
}

// TestHold: files journalled with given values (a tracefs filter whose
// empty content reads as a comment) are written back in order by Restore,
// and by Recover once their owner is gone; a file another running kdelta
// holds is refused.
func TestHold(t *testing.T) {
	root, jdir := t.TempDir(), t.TempDir()
	dir := filepath.Join(root, "sys/kernel/tracing")
	os.MkdirAll(dir, 0o755)
	tracer, filter := filepath.Join(dir, "current_tracer"), filepath.Join(dir, "set_ftrace_filter")
	os.WriteFile(tracer, []byte("nop\n"), 0o644)
	os.WriteFile(filter, []byte("#### all functions enabled ####\n"), 0o644)
	entries := []Entry{{Key: "tracefs.current_tracer", Path: tracer, Value: "nop"}, {Key: "tracefs.set_ftrace_filter", Path: filter, Value: ""}}
	s, err := Hold(entries, Options{Root: root, JournalDir: jdir})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, filter) != "#### all functions enabled ####\n" {
		t.Fatal("Hold wrote a file")
	}
	os.WriteFile(tracer, []byte("function_graph\n"), 0o644)
	os.WriteFile(filter, []byte("synchronize_rcu\n"), 0o644)
	// A second session of the process (knobs and tracefs) has a journal
	// of its own.
	s2, err := Hold(entries[1:], Options{Root: root, JournalDir: jdir})
	if err != nil {
		t.Fatalf("this process's own journal refused its file: %v", err)
	}
	if js := journals(t, jdir); len(js) != 2 {
		t.Fatalf("journals of two sessions: %v", js)
	}
	// The owner dies: Recover writes the values back.
	s.journal.release()
	s2.journal.release()
	done, _, err := recoverAt(jdir, root)
	if err != nil || len(done) != 2 {
		t.Fatalf("Recover: %v %v", done, err)
	}
	if read(t, tracer) != "nop\n" || read(t, filter) != "\n" {
		t.Errorf("after Recover: tracer %q, filter %q", read(t, tracer), read(t, filter))
	}

	// Restore, in order.
	s, err = Hold(entries, Options{Root: root, JournalDir: jdir})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tracer, []byte("function_graph\n"), 0o644)
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if read(t, tracer) != "nop\n" {
		t.Errorf("after Restore: tracer %q", read(t, tracer))
	}
	if js := journals(t, jdir); len(js) != 0 {
		t.Errorf("journal left after Restore: %v", js)
	}

	// Another kdelta, alive, holds the filter.
	rec := record{Schema: JournalSchema, PID: 1, Knobs: entries[1:]}
	b, _ := json.Marshal(rec)
	jf := filepath.Join(jdir, "1.json")
	os.WriteFile(jf, b, 0o600)
	f, err := os.Open(jf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sys.TryLock(f); err != nil {
		t.Fatal(err)
	}
	if _, err := Hold(entries, Options{Root: root, JournalDir: jdir}); err == nil || !strings.Contains(err.Error(), "kdelta pid 1 is changing it now") {
		t.Errorf("Hold of a file held by a running kdelta: %v", err)
	}
}
