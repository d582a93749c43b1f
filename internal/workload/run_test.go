package workload_test

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/workload"
)

// runInProcess runs spec as the measured child would, on a locked thread
// of the test process, and returns its report.
func runInProcess(t *testing.T, spec string) workload.Report {
	t.Helper()
	sp, err := workload.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	task := workload.NewTask(sp.Values, nil)
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the workload may change the thread's affinity, so
		// the thread exits with the goroutine instead of going back to the
		// runtime's pool.
		runtime.LockOSThread()
		done <- sp.Workload.Run(task)
	}()
	if err := <-done; err != nil {
		if reason, ok := workload.SkipReason(err); ok {
			testenv.Skipf(t, "%s skipped: %s", spec, reason)
		}
		t.Fatalf("%s: %v", spec, err)
	}
	if !task.Readied() {
		t.Errorf("%s never called Ready", spec)
	}
	return task.Report
}

func TestSyscallRuns(t *testing.T) {
	for _, name := range []string{"getppid", "gettid", "getpid", "getpgid", "getuid"} {
		rep := runInProcess(t, "syscall:calls=20000,syscall="+name)
		ns, cps := rep.Values["ns/call"], rep.Values["calls/s"]
		if !(ns > 0) || math.Abs(ns*cps-1e9)/1e9 > 1e-9 {
			t.Errorf("%s: ns/call %v and calls/s %v disagree", name, ns, cps)
		}
		if rep.Ops != 20000 {
			t.Errorf("%s: ops = %v, want 20000", name, rep.Ops)
		}
	}
}

func TestPipeRuns(t *testing.T) {
	for _, spec := range []string{
		"pipe:loops=2000",
		"pipe:loops=2000,mode=thread",
		"pipe:loops=2000,order=symmetric",
		"pipe:loops=2000,mode=thread,order=symmetric,cpus=same",
		"pipe:loops=2000,cpus=split",
	} {
		rep := runInProcess(t, spec)
		us, ops := rep.Values["usecs/op"], rep.Values["ops/s"]
		if !(us > 0) || math.Abs(us*ops-1e6)/1e6 > 1e-9 {
			t.Errorf("%s: usecs/op %v and ops/s %v disagree", spec, us, ops)
		}
		if rep.Ops != 2000 {
			t.Errorf("%s: ops = %v, want 2000", spec, rep.Ops)
		}
		if rep.Info["placement"] == "" {
			t.Errorf("%s: placement not recorded", spec)
		}
	}
}

// TestPipeWorkerFails: in process mode both workers are forked; one that
// cannot start (here: pinned to a CPU that does not exist) is named, and
// the other, left at end of file, does not hang the run.
func TestPipeWorkerFails(t *testing.T) {
	for _, tt := range []struct{ mode, cpus, want string }{
		{"process", "0,1000", "worker 1: could not pin itself"},
		{"process", "1000,0", "worker 0: could not pin itself"},
		{"thread", "0,1000", "worker 1: could not pin itself"},
		{"thread", "1000,0", "worker 0: could not pin itself"},
	} {
		sp, err := workload.ParseSpec("pipe:loops=100000,mode=" + tt.mode + ",cpus='" + tt.cpus + "'")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			done <- sp.Workload.Run(workload.NewTask(sp.Values, nil))
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("mode=%s cpus=%s: error %v, want one saying %q", tt.mode, tt.cpus, err, tt.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("mode=%s cpus=%s: the run did not end in 20 s", tt.mode, tt.cpus)
		}
	}
}
