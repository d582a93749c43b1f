package workload_test

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/workload"
)

func TestContextSwitchParams(t *testing.T) {
	s, err := workload.ParseSpec("context_switch")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"test": "yield", "mode": "thread", "cpus": "auto", "timeout": "5", "switches": "0", "fp": "true"} {
		if s.Values[k] != v {
			t.Errorf("default %s = %q, want %q", k, s.Values[k], v)
		}
	}
	for _, tc := range []struct{ spec, wantErr string }{
		{"context_switch:test=yield,cpus='0,1'", "one CPU"},
		{"context_switch:cpus=one", "cpus"},
		{"context_switch:cpus='1,-2'", "cpus"},
		{"context_switch:test=spin", "test"},
		{"context_switch:mode=fiber", "mode"},
		{"context_switch:timeout=0", "timeout"},
		{"context_switch:switches=-1", "switches"},
		{"context_switch:fp=maybe", "fp"},
	} {
		_, err := workload.ParseSpec(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseSpec(%q) = %v, want an error naming %q", tc.spec, err, tc.wantErr)
		}
	}
	for _, ok := range []string{"context_switch:test=pipe,cpus='0,1'", "context_switch:test=futex,cpus=1", "context_switch:test=yield,cpus='1,1'"} {
		if _, err := workload.ParseSpec(ok); err != nil {
			t.Errorf("ParseSpec(%q): %v", ok, err)
		}
	}
	// A warm-up is one second, or at most 200,000 switches.
	w, diff := workload.WarmupSpec(s)
	if w.Values["timeout"] != "1" || diff != "timeout=1" {
		t.Errorf("warm-up of the default: timeout=%s (%q), want 1", w.Values["timeout"], diff)
	}
}

// TestContextSwitchRuns runs every test in both modes for a fixed number
// of switches and checks the count, the metrics and the setup recorded.
func TestContextSwitchRuns(t *testing.T) {
	const n = 20000
	for _, test := range []string{"yield", "pipe", "futex"} {
		for _, mode := range []string{"thread", "process"} {
			spec := "context_switch:test=" + test + ",mode=" + mode + ",switches=" + strconv.Itoa(n)
			t.Run(test+"/"+mode, func(t *testing.T) {
				r := runSpec(t, spec).Report
				if r.Ops != n || r.Counts["switches"] != n {
					t.Errorf("ops = %v, switches = %v, want %d", r.Ops, r.Counts["switches"], n)
				}
				ps, ns := r.Values["switches/s"], r.Values["ns/switch"]
				if !(ns > 0) || math.Abs(ps*ns-1e9)/1e9 > 1e-9 {
					t.Errorf("switches/s %v and ns/switch %v disagree", ps, ns)
				}
				h := r.Info["header"]
				wantMode := map[string]string{"thread": "threads", "process": "processes"}[mode]
				if !strings.HasPrefix(h, "Using "+wantMode+" with "+test+" on cpus ") || !strings.Contains(h, "altivec:no vector:no vdso:no") {
					t.Errorf("header = %q", h)
				}
				if fp := strings.Contains(h, "FP:yes"); fp != (test != "futex") {
					t.Errorf("header %q: the futex test never touches FP, the others do by default", h)
				}
				if _, ok := r.Info[result.InfoPerSecond]; !ok {
					t.Errorf("no per-second counts recorded")
				}
				if kids := liveChildren(t); len(kids) > 0 {
					t.Errorf("children still running after the run: %v", kids)
				}
			})
		}
	}
}

// TestContextSwitchSeconds checks the selftest's output shape: with
// timeout=2, two per-second counts that add up to at most the total.
func TestContextSwitchSeconds(t *testing.T) {
	r := runSpec(t, "context_switch:test=pipe,timeout=2").Report
	run := &result.Run{Info: r.Info}
	counts, of, ok, err := run.PerSecond()
	if err != nil || !ok || of != "switches" {
		t.Fatalf("PerSecond = %v, %q, %v, %v", counts, of, ok, err)
	}
	if len(counts) != 2 {
		t.Fatalf("%d per-second counts (%q), want 2", len(counts), r.Info[result.InfoPerSecond])
	}
	sum := 0.0
	for _, c := range counts {
		if c <= 0 {
			t.Errorf("a second without switches: %v", counts)
		}
		sum += c
	}
	if sum > r.Ops {
		t.Errorf("per-second counts %v add up to %v, more than the %v counted", counts, sum, r.Ops)
	}
	// The tasks stop right after the second sample: the total is barely more.
	if r.Ops > sum*1.01 {
		t.Errorf("total %v is more than 1%% above the per-second counts' %v", r.Ops, sum)
	}
}

// TestContextSwitchBadCPU checks that a CPU the tasks cannot be pinned to
// fails the run with one error naming it, in both modes, and leaves no
// task behind.
func TestContextSwitchBadCPU(t *testing.T) {
	for _, mode := range []string{"thread", "process"} {
		for _, test := range []string{"yield", "pipe", "futex"} {
			sp, err := workload.ParseSpec("context_switch:cpus=1023,switches=1000,mode=" + mode + ",test=" + test)
			if err != nil {
				t.Fatal(err)
			}
			task := workload.NewTask(sp.Values, nil)
			err = runLocked(func() error { return sp.Workload.Run(task) })
			if err == nil || !strings.Contains(err.Error(), "CPU") || !strings.Contains(err.Error(), "1023") {
				t.Errorf("%s/%s: Run = %v, want an error naming CPU 1023", test, mode, err)
			}
			if kids := liveChildren(t); len(kids) > 0 {
				t.Errorf("%s/%s: children still running after the failed run: %v", test, mode, kids)
			}
		}
	}
}

// runLocked runs f on a goroutine locked to a thread of its own, which
// exits with it, so an affinity f changes goes with the thread.
func runLocked(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- f()
	}()
	return <-done
}
