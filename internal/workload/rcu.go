package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/sys"
)

// rcuLatency times synchronize_rcu() as user space reaches it:
// membarrier(MEMBARRIER_CMD_GLOBAL) waits for one RCU grace period when
// more than one CPU is online (kernel/sched/membarrier.c). It is the
// "100 synchronize_rcu() calls per run" table of the RCU latency mails, with
// rcuscale's percentiles added.
type rcuLatency struct{}

func init() { Register(rcuLatency{}) }

func (rcuLatency) Name() string { return "rcu" }

func (rcuLatency) Doc() string {
	return "synchronize_rcu() latency through membarrier(MEMBARRIER_CMD_GLOBAL)"
}

func (rcuLatency) Params() []Param {
	return []Param{
		{Name: "calls", Kind: Int, Default: "100", Min: 1, Doc: "membarrier calls per run, per caller"},
		{Name: "callers", Kind: Int, Default: "1", Min: 1,
			Doc: "concurrent callers, rcuscale-like: each on its own thread pinned to an allowed CPU (caller id modulo their count)"},
	}
}

func (rcuLatency) Metrics() []result.Metric {
	ms := func(name, doc string) result.Metric {
		return result.Metric{Name: name, Unit: "ms", Better: result.Lower, Doc: doc}
	}
	return []result.Metric{
		ms("mean", "mean latency of one call"),
		ms("min", "fastest call"),
		ms("p50", "median call, rcuscale's percentile rule"),
		ms("p90", "90th percentile call"),
		ms("p99", "99th percentile call"),
		ms("max", "slowest call"),
	}
}

// Precheck asks the kernel, in the parent, whether MEMBARRIER_CMD_GLOBAL is
// available at all, so a machine without it marks the benchmark skipped
// before any child starts.
func (rcuLatency) Precheck(Values) string {
	reason, err := membarrierGlobalUnavailable()
	if err != nil {
		// Not a clear "cannot run": let the run report the error itself.
		return ""
	}
	return reason
}

// membarrierGlobalUnavailable returns why MEMBARRIER_CMD_GLOBAL cannot be
// used here, or "" when it can. The kernel answers QUERY with the commands
// it supports; it clears GLOBAL (bit 0) when any CPU is nohz_full, where
// GLOBAL returns EINVAL.
func membarrierGlobalUnavailable() (string, error) {
	mask, err := sys.Membarrier(sys.MembarrierQuery, 0)
	if sys.IsENOSYS(err) {
		return "CONFIG_MEMBARRIER not set", nil
	}
	if err != nil {
		return "", fmt.Errorf("membarrier(MEMBARRIER_CMD_QUERY): %w", err)
	}
	if mask&sys.MembarrierGlobal == 0 {
		return "nohz_full: the kernel disables MEMBARRIER_CMD_GLOBAL when a CPU is nohz_full", nil
	}
	return "", nil
}

func (rcuLatency) Run(t *Task) error {
	reason, err := membarrierGlobalUnavailable()
	if err != nil {
		return err
	}
	if reason != "" {
		return Skip("%s", reason)
	}
	calls := t.Params.Int("calls")
	callers := t.Params.Int("callers")

	if online, err := onlineCPUs("/"); err == nil {
		t.Info("online_cpus", sys.FormatCPUList(online))
		if len(online) == 1 {
			// membarrier returns at once on one CPU: the figures are
			// the syscall's cost, not a grace period's.
			t.Info("warning", "single online CPU: membarrier waits for no grace period")
		}
	}
	recordRCUSettings(t, "/")

	lat := make([]float64, calls*callers)
	// Every caller sits in a raw membarrier at once, holding its P: one
	// each, and the collector off.
	Prepare(callers)
	if callers == 1 {
		if err := t.Ready(); err != nil {
			return err
		}
		err = membarrierCalls(lat)
		if eerr := t.End(); err == nil {
			err = eerr
		}
	} else {
		err = membarrierCallers(t, calls, callers, lat)
	}
	if err != nil {
		return err
	}

	t.SetOps(float64(len(lat)))
	t.Count("calls", float64(len(lat)))
	t.Latencies("ms", lat)
	l := t.Report.Latency
	t.Set("mean", l.Mean)
	t.Set("min", l.Min)
	t.Set("p50", l.P50)
	t.Set("p90", l.P90)
	t.Set("p99", l.P99)
	t.Set("max", l.Max)
	return nil
}

// membarrierCalls fills lat with the latency, in ms, of one
// MEMBARRIER_CMD_GLOBAL call each, on the calling (locked) thread:
// sys.RawMembarrierGlobal, a raw nosplit loop, so that no runtime thread
// is woken while the call waits for its grace period.
func membarrierCalls(lat []float64) error {
	if n, e := sys.RawMembarrierGlobal(lat); e != 0 {
		return fmt.Errorf("membarrier(MEMBARRIER_CMD_GLOBAL) call %d: %w", n+1, e)
	}
	return nil
}

// membarrierCallers runs callers concurrent callers of calls calls each, as
// rcuscale's writers: each on a locked thread pinned to one of the CPUs the
// run may use (caller id modulo their count), all released together after
// t.Ready. Caller i's latencies go to lat[i*calls:(i+1)*calls].
func membarrierCallers(t *Task, calls, callers int, lat []float64) error {
	allowed, err := sys.Affinity(0)
	if err != nil {
		return err
	}
	var (
		pinned, done sync.WaitGroup
		start        = make(chan struct{})
		proceed      bool // written before start is closed
		errs         = make([]error, callers)
	)
	cpus := make([]string, callers)
	for id := 0; id < callers; id++ {
		cpu := allowed[id%len(allowed)]
		cpus[id] = fmt.Sprint(cpu)
		pinned.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			// Locked and never unlocked: the pinned thread exits with
			// this goroutine rather than return to the runtime's pool.
			runtime.LockOSThread()
			errs[id] = sys.SetAffinity(0, []int{cpu})
			pinned.Done()
			<-start
			if errs[id] != nil || !proceed {
				return
			}
			errs[id] = membarrierCalls(lat[id*calls : (id+1)*calls])
		}()
	}
	pinned.Wait()
	t.Info("caller_cpus", strings.Join(cpus, ","))
	err = t.Ready()
	proceed = err == nil
	close(start)
	done.Wait()
	if err != nil {
		return err
	}
	if err := t.End(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// onlineCPUs reads the online CPUs under root. That, not the affinity
// mask, is what decides whether membarrier waits for a grace period.
func onlineCPUs(root string) ([]int, error) {
	p := filepath.Join(root, "sys/devices/system/cpu/online")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	cpus, err := sys.ParseCPUList(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return cpus, nil
}

// rcuSettings are the run-time RCU knobs that move grace-period latency,
// keyed by the name a result's Info uses.
var rcuSettings = []struct{ key, path string }{
	{"rcu_expedited", "sys/kernel/rcu_expedited"},
	{"rcu_normal", "sys/kernel/rcu_normal"},
	{"rcu_normal_wake_from_gp", "sys/module/rcutree/parameters/rcu_normal_wake_from_gp"},
	{"jiffies_till_first_fqs", "sys/module/rcutree/parameters/jiffies_till_first_fqs"},
	{"jiffies_till_next_fqs", "sys/module/rcutree/parameters/jiffies_till_next_fqs"},
}

// recordRCUSettings records the RCU knobs as they are during the run: they
// can be changed at run time, so the fingerprint taken at the start of
// kdelta run may not be what this run saw.
func recordRCUSettings(t *Task, root string) {
	for _, s := range rcuSettings {
		v := "not available"
		if b, err := os.ReadFile(filepath.Join(root, s.path)); err == nil {
			v = strings.TrimSpace(string(b))
		}
		t.Info(s.key, v)
	}
}
