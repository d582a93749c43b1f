package cli_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// kdeltaBinary builds cmd/kdelta once per test process: signal tests need
// a real kdelta process to interrupt and kill.
func kdeltaBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kdelta-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "kdelta")
		// Static, so that it can also be the /init of a qemu guest.
		build := exec.Command("go", "build", "-o", binPath, "../../cmd/kdelta")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v: %s", buildErr, binPath)
	}
	return binPath
}

// startMarked starts kdelta with a unique marker in its environment, which
// every child and grandchild inherits, so the test can find survivors.
func startMarked(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	var b [8]byte
	rand.Read(b[:])
	mark := "KDELTA_TEST_MARK=" + hex.EncodeToString(b[:])
	cmd := exec.Command(kdeltaBinary(t), args...)
	cmd.Env = append(os.Environ(), mark)
	cmd.Stdout = new(strings.Builder)
	cmd.Stderr = new(strings.Builder)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, mark
}

// interrupt ends a run the test has seen enough of with SIGINT, as a
// user's Ctrl-C, and wants kdelta's exit for an interrupted run (130),
// or success where the run ended by itself first; a run that had failed
// says so. The long runs the window tests watch would take 20 s on a
// machine with slow system calls.
func interrupt(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("SIGINT: %v", err)
	}
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 && code != 0 {
		t.Fatalf("kdelta run after SIGINT: %v (code %d), want 130: %s", err, code, cmd.Stderr)
	}
}

// waitRuns waits until path holds at least n finished runs.
func waitRuns(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if s, err := result.Load(path); err == nil && okRuns(s) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never held %d finished runs", path, n)
}

func okRuns(s *result.Set) int {
	n := 0
	for _, b := range s.Benchmarks {
		for _, r := range b.Runs {
			if r.Status == result.StatusOK {
				n++
			}
		}
	}
	return n
}

// survivors lists processes that carry mark in their environment, or
// whose parent is pid.
func survivors(mark string, pid int) []string {
	var left []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 0 && f[0] == "Z" {
				continue
			}
			if len(f) > 1 && f[1] == strconv.Itoa(pid) {
				left = append(left, e.Name()+" (child of kdelta)")
				continue
			}
		}
		if strings.Contains(string(env), mark) {
			cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			left = append(left, e.Name()+": "+strings.ReplaceAll(string(cl), "\x00", " "))
		}
	}
	return left
}

func waitNoSurvivors(t *testing.T, mark string, pid int) {
	t.Helper()
	var left []string
	for i := 0; i < 100; i++ {
		if left = survivors(mark, pid); len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("processes survived kdelta: %v", left)
}

func TestSIGINTKeepsRunsAndChildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	cmd, mark := startMarked(t, "run", "pipe:loops=20000", "pipe:loops=20000,mode=thread", "-r", "20", "-o", path)
	waitRuns(t, path, 3)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit after SIGINT: %v (code %d), want 130; stderr: %s", err, code, cmd.Stderr)
	}
	if !strings.Contains(cmd.Stderr.(*strings.Builder).String(), "interrupted") {
		t.Errorf("stderr does not say interrupted: %s", cmd.Stderr)
	}
	s, err := result.Load(path)
	if err != nil {
		t.Fatalf("result file after SIGINT: %v", err)
	}
	if okRuns(s) < 3 || s.Complete {
		t.Errorf("after SIGINT: %d finished runs, complete=%v", okRuns(s), s.Complete)
	}
	waitNoSurvivors(t, mark, cmd.Process.Pid)
}

func TestSIGKILLKeepsRunsAndChildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the killed kdelta's children would leave their logs
	cmd, mark := startMarked(t, "run", "pipe:loops=20000", "pipe:loops=20000,mode=thread", "-r", "20", "-o", path)
	waitRuns(t, path, 3)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	s, err := result.Load(path)
	if err != nil {
		t.Fatalf("result file after SIGKILL: %v", err)
	}
	if okRuns(s) < 3 {
		t.Errorf("after SIGKILL: %d finished runs, want ≥ 3", okRuns(s))
	}
	waitNoSurvivors(t, mark, cmd.Process.Pid)
	if left, _ := filepath.Glob(filepath.Join(tmp, "kdelta-child-*")); len(left) != 0 {
		t.Errorf("after SIGKILL, child logs left in TMPDIR: %v", left)
	}
}
