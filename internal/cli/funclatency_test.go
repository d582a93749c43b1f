package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// oneLine checks that a command refused as kdelta refuses a usage or input
// error: exit 2, one line on stderr holding want, nothing on stdout, and
// no result file at out (nothing ran).
func oneLine(t *testing.T, code int, stdout, stderr, want, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "kdelta: --funclatency: ") || !strings.Contains(lines[0], want) || stdout != "" {
		t.Errorf("exit %d, want 2 with one line holding %q:\nstdout: %s\nstderr: %s", code, want, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written: a run started before the refusal", out)
	}
}

// TestFuncLatencyUnknownFunction is acceptance 3's refusal of a function
// the kernel does not have: one line naming it, exit 2, before anything
// runs. The kernel's own list decides (kallsyms, or the list of traceable
// functions where it can be read).
func TestFuncLatencyUnknownFunction(t *testing.T) {
	ownJournal(t)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := kd(t, "run", "syscall:calls=1000", "-r", "1", "--no-store", "-o", out, "--funclatency", "no_such_function")
	oneLine(t, code, stdout, stderr, "no_such_function: no such function in this kernel", out)
	code, stdout, stderr = kd(t, "ab", "--variant", "a:", "--variant", "b:", "--no-store", "-o", out, "--funclatency", "synchronize_rcu,no_such_function", "--", "syscall:calls=1000")
	oneLine(t, code, stdout, stderr, "no_such_function: no such function in this kernel", out)
}

// TestFuncLatencyHere is acceptance 3 on this machine's kernel: where it
// has no function_graph tracer (this project's 6.18 host: no kprobes, no
// function_graph, fentry refused) kdelta refuses in one line that names
// the missing tracer, exit 2, before any run; where it has one, a run as
// root times the calls of the syscall the workload makes.
func TestFuncLatencyHere(t *testing.T) {
	ownJournal(t)
	out := filepath.Join(t.TempDir(), "r.json")
	tracers, err := os.ReadFile("/sys/kernel/tracing/available_tracers")
	if err != nil || !slices.Contains(strings.Fields(string(tracers)), "function_graph") {
		code, stdout, stderr := kd(t, "run", "syscall:calls=1000", "-r", "1", "--no-store", "-o", out, "--funclatency", "synchronize_rcu")
		want := "this kernel has no function_graph tracer"
		if err != nil {
			want = "" // no tracefs here at all: the line says why
		}
		oneLine(t, code, stdout, stderr, want, out)
		t.Logf("refused: %s", strings.TrimSpace(stderr))
		return
	}
	testenv.NeedRoot(t, "function_graph through tracefs")
	fn := "__x64_sys_getppid"
	code, _, stderr := kd(t, "run", "syscall:calls=1000", "-r", "2", "--warmup", "0", "--no-store", "-o", out, "--funclatency", fn, "--funclatency-scope", "tasks")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Benchmarks[0].Measured() {
		if r.Values[fn+".calls"] < 1000 {
			t.Errorf("run %d: %v calls of %s, want at least the workload's 1000", r.Index, r.Values[fn+".calls"], fn)
		}
	}
}

// fakeTracefs copies counter's plain-file tracefs tree, shaped like a 6.1
// kernel's with the function_graph tracer, for the kdelta binary to set
// up through $KDELTA_TRACEFS: what kdelta writes and puts back can be
// checked on any machine; the guest tests check what a real kernel does.
func fakeTracefs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tracing")
	if err := os.CopyFS(dir, os.DirFS("../counter/testdata/tracefs")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tracefsState reads the files of a tracefs tree that kdelta sets.
func tracefsState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range []string{"current_tracer", "tracing_on", "buffer_size_kb", "set_ftrace_filter", "set_ftrace_pid", "options/funcgraph-tail", "options/function-fork"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = strings.TrimSpace(string(b))
	}
	return out
}

// restoredTracefs is the tree's state once kdelta put it back: its own
// values, the lists emptied, the buffer at the size it was to expand to.
var restoredTracefs = map[string]string{"current_tracer": "nop", "tracing_on": "1", "buffer_size_kb": "1408",
	"set_ftrace_filter": "", "set_ftrace_pid": "", "options/funcgraph-tail": "0", "options/function-fork": "0"}

func checkRestored(t *testing.T, when, dir string) {
	t.Helper()
	got := tracefsState(t, dir)
	for f, want := range restoredTracefs {
		if got[f] != want {
			t.Errorf("%s: %s = %q, want %q", when, f, got[f], want)
		}
	}
}

// TestFuncLatencyRestores is acceptance 3's "gone after the run, after a
// failure and after SIGKILL", with the kdelta binary on a plain-file
// tracefs ($KDELTA_TRACEFS): after a session, after a session whose runs
// fail, and after kdelta is killed mid-run and the next kdelta starts,
// every file it set holds its value again and no journal is left. The
// same is checked in a guest on a real tracefs (TestFuncLatencyVMRestores).
func TestFuncLatencyRestores(t *testing.T) {
	journal := ownJournal(t)
	dir := fakeTracefs(t)
	env := append(os.Environ(), "KDELTA_TRACEFS="+dir, "KDELTA_STORE=")
	bin := kdeltaBinary(t)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kdelta %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	run("run", "syscall:calls=1000", "-r", "1", "--warmup", "0", "--no-store", "-o", out, "--funclatency", "synchronize_rcu", "--funclatency-scope", "tasks")
	checkRestored(t, "after a session", dir)
	s, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Benchmarks[0].Runs[0]; len(r.Functions) != 1 || !strings.Contains(r.Info["funclatency"], "tasks scope") {
		t.Errorf("the run's record: functions %+v, info %q", r.Functions, r.Info["funclatency"])
	}
	// A session whose runs all failed measured nothing: exit 1, and the
	// tracer put back all the same.
	failed := exec.Command(bin, "run", "command:cmd=/nonexistent/command", "-r", "1", "--warmup", "0", "--no-store", "--funclatency", "synchronize_rcu")
	failed.Env = env
	b, err := failed.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("kdelta run of a command that cannot start: %v, want exit 1\n%s", err, b)
	}
	checkRestored(t, "after a session whose runs failed", dir)

	cmd := exec.Command(bin, "run", "rcu:calls=1000000", "-r", "1", "--warmup", "0", "--no-store", "--funclatency", "synchronize_rcu")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	deadline := time.Now().Add(30 * time.Second)
	for tracefsState(t, dir)["current_tracer"] != "function_graph" {
		if time.Now().After(deadline) {
			t.Fatal("kdelta never set the tracer up")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // into the run
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if got := tracefsState(t, dir); got["current_tracer"] != "function_graph" || len(journalsIn(journal)) != 1 {
		t.Fatalf("after SIGKILL, before the next kdelta: %v, journals %v (the kill came too late to test anything)", got, journalsIn(journal))
	}
	said := run("restore")
	checkRestored(t, "after SIGKILL and kdelta restore", dir)
	if !strings.Contains(said, "restored tracefs.current_tracer=nop") {
		t.Errorf("kdelta restore did not say what it put back:\n%s", said)
	}
	if js := journalsIn(journal); len(js) != 0 {
		t.Errorf("journals left: %v", js)
	}
}
