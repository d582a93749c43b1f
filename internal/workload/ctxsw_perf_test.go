package workload_test

import (
	"context"
	"sort"
	"strconv"
	"testing"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestContextSwitchOneSwitchPerHandoff is issue 16's first acceptance
// check: run through the runner as kdelta run does, under SCHED_FIFO and
// pinned to one CPU (the seed mail's chrt -f 98, where a yield or a
// handoff must switch), perf's context-switches counter on the measured
// child — every task it creates included — must be 1.00 ± 0.02 per
// switch the workload counted, for each test in both modes. Start-up,
// the start gate, the sampler's once-a-second wake-up and the Go
// runtime's own threads all count against it.
func TestContextSwitchOneSwitchPerHandoff(t *testing.T) {
	testenv.NeedRoot(t, "SCHED_FIFO (--fifo 98)")
	evs, err := counter.ParseEvents("context-switches")
	if err != nil {
		t.Fatal(err)
	}
	// CPU 1, as the seed mail's runs and bench/fidelity.sh.
	const cpu, n = 1, 50000
	for _, test := range []string{"yield", "pipe", "futex"} {
		for _, mode := range []string{"thread", "process"} {
			t.Run(test+"/"+mode, func(t *testing.T) {
				sp, err := workload.ParseSpec("context_switch:test=" + test + ",mode=" + mode + ",switches=" + strconv.Itoa(n))
				if err != nil {
					t.Fatal(err)
				}
				// The median of three runs: other tests share this
				// machine, and a task of theirs woken on the CPU adds
				// switches.
				var per []float64
				for i := 0; i < 3; i++ {
					r := ctxswRunOnce(t, sp, evs, cpu)
					cs := counterValue(t, r, "context-switches")
					if r.Ops != n {
						t.Fatalf("ops = %v, want %d", r.Ops, n)
					}
					per = append(per, cs/r.Ops)
					t.Logf("run %d: %.0f context switches for %.0f handoffs: %.4f per handoff; %s", i+1, cs, r.Ops, cs/r.Ops, r.Info["header"])
				}
				if m := median(per); m < 0.98 || m > 1.02 {
					t.Errorf("context switches per handoff: median %.4f of %v, want 1.00 ± 0.02", m, per)
				}
			})
		}
	}
}

func ctxswRunOnce(t *testing.T, sp workload.Spec, evs []counter.Event, cpu int) *result.Run {
	t.Helper()
	opt := &runner.Options{
		Repeat:  1,
		CPUs:    []int{cpu},
		FIFO:    98,
		OnReady: counter.Hook(evs, counter.Options{}, nil, "/"),
	}
	if err := runner.Check(opt); err != nil {
		testenv.Skipf(t, "cannot pin to CPU %d under SCHED_FIFO here: %v", cpu, err)
	}
	set, err := runner.Run(context.Background(), []workload.Spec{sp}, opt)
	if err != nil {
		t.Fatal(err)
	}
	r := set.Benchmarks[0].Runs[0]
	if r.Status != result.StatusOK {
		t.Fatalf("run %s: %s", r.Status, r.Reason)
	}
	return r
}

func counterValue(t *testing.T, r *result.Run, name string) float64 {
	t.Helper()
	for _, c := range r.Counters {
		if c.Name == name {
			if c.Unsupported != "" {
				testenv.Skipf(t, "%s cannot be counted here: %s", name, c.Unsupported)
			}
			return c.Value
		}
	}
	t.Fatalf("no counter %s in the run (%+v)", name, r.Counters)
	return 0
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
