package workload

import (
	"runtime"
	"runtime/debug"

	"github.com/kdelta/kdelta/internal/result"
)

// A Report is what one run of a workload measured, sent from the child to
// the parent.
type Report struct {
	Values  map[string]float64 `json:"values,omitempty"`
	Ops     float64            `json:"ops,omitempty"`
	Counts  map[string]float64 `json:"counts,omitempty"`
	Latency *result.Latency    `json:"latency,omitempty"`
	Info    map[string]string  `json:"info,omitempty"`
}

// A Task is a workload's handle on the run it is executing.
type Task struct {
	Params  Values
	Report  Report
	ready   func() error
	readied bool
	end     func() error
	ended   bool
}

// NewTask returns a task for params; ready is called by Task.Ready (the
// runner's start handshake). A nil ready does nothing, for tests.
func NewTask(params Values, ready func() error) *Task {
	return &Task{
		Params: params,
		Report: Report{Values: map[string]float64{}, Counts: map[string]float64{}, Info: map[string]string{}},
		ready:  ready,
	}
}

// Ready tells the parent the run is set up and waits for its go-ahead.
// Call it once, after setup and before creating the measured tasks.
func (t *Task) Ready() error {
	if t.readied {
		return nil
	}
	t.readied = true
	if t.ready == nil {
		return nil
	}
	return t.ready()
}

// SetEnd gives End what to do: the runner's, when something watches the
// timed part (kdelta run --funclatency). Without it End does nothing.
func (t *Task) SetEnd(end func() error) { t.end = end }

// End says the timed part is over. Call it once, right after the last
// timed operation and before anything the run does after it (tearing down
// what it set up, summarising its latencies), so that a probe of the
// timed part (kdelta run --funclatency) sees that part and nothing else;
// a workload that does not call it is watched until its result is sent.
func (t *Task) End() error {
	if t.ended || !t.readied {
		return nil
	}
	t.ended = true
	if t.end == nil {
		return nil
	}
	return t.end()
}

// Readied tells whether Ready was called.
func (t *Task) Readied() bool { return t.readied }

// Set records metric name.
func (t *Task) Set(name string, v float64) { t.Report.Values[name] = v }

// SetOps records how many operations the run performed.
func (t *Task) SetOps(n float64) { t.Report.Ops = n }

// Count records a tally the workload kept (messages, calls).
func (t *Task) Count(name string, v float64) { t.Report.Counts[name] = v }

// Info records a fact about the run (placement, mode, limits raised).
func (t *Task) Info(key, value string) { t.Report.Info[key] = value }

// Latencies records the per-operation latencies of the run.
func (t *Task) Latencies(unit string, raw []float64) {
	t.Report.Latency = Summarize(unit, raw)
}

// Prepare readies the Go runtime for a timed window in which up to
// blocking threads may sit in a raw system call at once: it raises
// GOMAXPROCS above that count (a raw call keeps its P, so with too few Ps
// the goroutines still runnable would starve) and switches the garbage
// collector off. The measured loops allocate nothing, so nothing builds up.
func Prepare(blocking int) {
	if want := blocking + 2; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
	debug.SetGCPercent(-1)
}

// OneP gives the Go runtime a single P for a window in which this
// process only waits, in calls that give the P back (RawThread.Join,
// wait4), for measured tasks the runtime does not run (raw threads,
// forked tasks), and returns what puts the count back. With more Ps,
// sysmon leaves a P in a system call alone for 10 ms while another is
// idle and looks at it every 20 µs to 5 ms meanwhile: 26 wake-ups in the
// first 13 ms of an unpinned pipe thread-mode window, beside the pair it
// measures. With one it takes the P back at its second look and then
// sleeps until the window is over.
func OneP() (restore func()) {
	n := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(n) }
}

// Summarize computes the latency summary of raw (result.Summarize).
func Summarize(unit string, raw []float64) *result.Latency { return result.Summarize(unit, raw) }

// Percentile returns the p-th percentile of sorted, rcuscale style
// (result.Percentile).
func Percentile(sorted []float64, p float64) float64 { return result.Percentile(sorted, p) }
