package workload

import (
	"errors"
	"fmt"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// syscallLoop is the null-syscall loop of `perf bench syscall basic` (getppid
// by default) and of the powerpc null_syscall selftest (gettid since v5.14).
type syscallLoop struct{}

func init() { Register(syscallLoop{}) }

func (syscallLoop) Name() string { return "syscall" }

func (syscallLoop) Doc() string {
	return "null system call loop, as perf bench syscall basic and null_syscall"
}

func (syscallLoop) Params() []Param {
	return []Param{
		{Name: "syscall", Default: "getppid", Choices: []string{"getppid", "gettid", "getpid", "getpgid", "getuid"},
			Doc: "the call; getppid as perf bench syscall basic, gettid as null_syscall since v5.14"},
		{Name: "calls", Kind: Int, Default: "10000000", Min: 1, Doc: "calls per run"},
		{Name: "soak", Kind: Duration, Default: "0s", Doc: "busy loop before timing, to raise the clock (null_syscall uses 250ms)"},
	}
}

func (syscallLoop) Metrics() []result.Metric {
	return []result.Metric{
		{Name: "ns/call", Unit: "ns", Better: result.Lower, Doc: "time per call"},
		{Name: "calls/s", Unit: "calls/s", Better: result.Higher, Doc: "calls per second"},
	}
}

// WarmupValues caps a warm-up at a million calls: 0.1–0.2 s here, 1 s
// under TCG emulation.
func (syscallLoop) WarmupValues(v Values) Values { return capInt(v, "calls", 1000000) }

func (syscallLoop) Run(t *Task) error {
	name := t.Params.String("syscall")
	nr, ok := sys.NullSyscall(name)
	if !ok {
		return fmt.Errorf("unknown syscall %q", name)
	}
	calls := t.Params.Int("calls")
	Prepare(0)
	// The soak comes before Ready, outside what the counters and a
	// profile see: they start at the go-ahead, as the timed loop does.
	if d := t.Params.Duration("soak"); d > 0 {
		soak(d)
	}
	if err := t.Ready(); err != nil {
		return err
	}
	// The loop is the measured code: a raw call per iteration, nothing
	// else, and no preemption. getppid and friends never block, so the raw
	// path is safe. On a raw thread nothing of the runtime runs beside it
	// (sys.NullLoopThread); on a locked goroutine where there is none.
	restore := OneP()
	el, err := sys.NullLoopThread(nr, calls)
	if errors.Is(err, sys.ErrNoRawThread) {
		start := time.Now()
		sys.RawNullLoop(nr, calls)
		el, err = time.Since(start), nil
	}
	if endErr := t.End(); err == nil {
		err = endErr
	}
	restore()
	if err != nil {
		return err
	}
	t.SetOps(float64(calls))
	t.Count("calls", float64(calls))
	ns := float64(el.Nanoseconds()) / float64(calls)
	t.Set("ns/call", ns)
	t.Set("calls/s", 1e9/ns)
	return nil
}

// soak spins for d, as null_syscall does before timing, so a CPU with
// frequency scaling reaches its working clock.
func soak(d time.Duration) {
	end := time.Now().Add(d)
	x := 0
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			x += i
		}
	}
	_ = x
}
