package workload_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/workload"
)

// runSpec parses spec and runs it in the test process the way the runner's
// child does: on a goroutine locked to its thread. It puts back the Go
// runtime settings Prepare changes, so later tests see the usual runtime.
func runSpec(t *testing.T, spec string) *workload.Task {
	t.Helper()
	s, err := workload.ParseSpec(spec)
	if err != nil {
		t.Fatalf("ParseSpec(%q): %v", spec, err)
	}
	procs := runtime.GOMAXPROCS(0)
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	defer func() {
		runtime.GOMAXPROCS(procs)
		debug.SetGCPercent(gc)
	}()
	task := workload.NewTask(s.Values, nil)
	runtime.LockOSThread()
	err = s.Workload.Run(task)
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatalf("%s: Run: %v", spec, err)
	}
	if !task.Readied() {
		t.Errorf("%s: Run never called Ready", spec)
	}
	return task
}

// liveWorkers returns the pids of processes still running a helper of the
// given role, found by their command lines.
func liveWorkers(t *testing.T, role string) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		args := bytes.Split(b, []byte{0})
		for i := 0; i+1 < len(args); i++ {
			if string(args[i]) == workload.WorkerArg && string(args[i+1]) == role {
				pids = append(pids, filepath.Base(filepath.Dir(p)))
				break
			}
		}
	}
	return pids
}

// liveChildren returns the pids of this process's children that are still
// there (zombies too), from /proc/PID/stat.
func liveChildren(t *testing.T) []string {
	return childrenOf(t, strconv.Itoa(os.Getpid()))
}

// childrenOf returns the pids of the children of process me that are
// still there (zombies too).
func childrenOf(t *testing.T, me string) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at
		// the last parenthesis.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == me {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

func TestMessagingRuns(t *testing.T) {
	for _, tc := range []struct {
		spec               string
		groups, fds, loops int
	}{
		{"messaging:mode=process,ipc=socket,groups=2,fds=3,loops=50", 2, 3, 50},
		{"messaging:mode=process,ipc=pipe,groups=2,fds=5,loops=50,size=4000", 2, 5, 50},
		{"messaging:mode=process,spawn=exec,ipc=socket,groups=2,fds=3,loops=50", 2, 3, 50},
		{"messaging:mode=process,spawn=exec,ipc=pipe,groups=1,fds=3,loops=50", 1, 3, 50},
		{"messaging:mode=thread,ipc=socket,groups=2,fds=4,loops=50", 2, 4, 50},
		{"messaging:mode=thread,ipc=pipe,groups=2,fds=4,loops=50,size=4000", 2, 4, 50},
		// Thread mode at perf's -g 20 -t scale: 800 threads blocking in
		// raw calls in one process, GOMAXPROCS 803.
		{"messaging:mode=thread,groups=20,loops=2", 20, 20, 2},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			task := runSpec(t, tc.spec)
			r := task.Report
			want := float64(tc.groups * tc.fds * tc.fds * tc.loops)
			if got := r.Counts["messages_sent"]; got != want {
				t.Errorf("messages_sent = %v, want %v", got, want)
			}
			if got := r.Counts["messages_received"]; got != want {
				t.Errorf("messages_received = %v, want %v", got, want)
			}
			if r.Ops != want {
				t.Errorf("ops = %v, want %v", r.Ops, want)
			}
			if r.Values["time"] <= 0 {
				t.Errorf("time = %v, want > 0", r.Values["time"])
			}
			if r.Info["nofile"] == "" {
				t.Errorf("no nofile info in %v", r.Info)
			}
			if strings.Contains(tc.spec, "process") {
				for _, role := range []string{"messaging-receiver", "messaging-sender"} {
					if pids := liveWorkers(t, role); len(pids) > 0 {
						t.Errorf("%s workers still running after the run: %v", role, pids)
					}
				}
				if kids := liveChildren(t); len(kids) > 0 {
					t.Errorf("forked workers still running after the run: %v", kids)
				}
			}
		})
	}
}

func TestMessagingParams(t *testing.T) {
	s, err := workload.ParseSpec("messaging")
	if err != nil {
		t.Fatal(err)
	}
	defaults := map[string]string{"groups": "10", "fds": "20", "loops": "100", "size": "100", "mode": "process", "ipc": "socket"}
	for k, v := range defaults {
		if s.Values[k] != v {
			t.Errorf("default %s = %q, want %q", k, s.Values[k], v)
		}
	}
	for _, tc := range []struct {
		spec, wantErr string
	}{
		{"messaging:groups=0", "groups"},
		{"messaging:fds=-1", "fds"},
		{"messaging:loops=many", "loops"},
		{"messaging:size=0", "size"},
		{"messaging:size=2000000", "size"},
		{"messaging:mode=fork", "mode"},
		{"messaging:ipc=tcp", "ipc"},
		{"messaging:spawn=vfork", "spawn"},
		{"messaging:datasize=100", "datasize"},
	} {
		_, err := workload.ParseSpec(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseSpec(%q) = %v, want an error naming %q", tc.spec, err, tc.wantErr)
		}
	}
}

// TestMessagingWorkerArgs checks that a helper started with bad arguments
// fails with a status instead of running.
func TestMessagingWorkerArgs(t *testing.T) {
	for _, args := range [][]string{
		{"messaging-receiver", "0"},
		{"messaging-receiver", "0", "1", "2"},
		{"messaging-sender", "0", "1", "x", "100"},
		{"messaging-sender", "0", "1", "10", "0"},
	} {
		if got := workload.WorkerMain(args); got == 0 {
			t.Errorf("WorkerMain(%q) = 0, want a failure", args)
		}
	}
}

// TestMessagingWorkerKilled: a worker that dies in the middle of a run
// fails it with the worker and its end named, from what the forker
// reports through shared memory, and nothing is left running.
func TestMessagingWorkerKilled(t *testing.T) {
	const fds = 4
	s, err := workload.ParseSpec("messaging:mode=process,ipc=pipe,groups=1,fds=4,loops=2000000")
	if err != nil {
		t.Fatal(err)
	}
	procs, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	defer func() {
		runtime.GOMAXPROCS(procs)
		debug.SetGCPercent(gc)
	}()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- s.Workload.Run(workload.NewTask(s.Values, nil))
	}()
	// The forker is this process's child, the workers its; the first
	// forked, a receiver, has the lowest pid.
	victim := 0
	for deadline := time.Now().Add(30 * time.Second); victim == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, f := range liveChildren(t) {
			if kids := childrenOf(t, f); len(kids) == 2*fds {
				for _, k := range kids {
					if pid, _ := strconv.Atoi(k); victim == 0 || pid < victim {
						victim = pid
					}
				}
			}
		}
	}
	if victim == 0 {
		t.Fatal("no forker with its workers seen")
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end after a worker was killed")
	}
	want := fmt.Sprintf("messaging: worker 0: process %d killed by killed", victim)
	if err == nil || err.Error() != want {
		t.Errorf("Run: %v, want %q", err, want)
	}
	if kids := liveChildren(t); len(kids) > 0 {
		t.Errorf("children still running after the run: %v", kids)
	}
}
