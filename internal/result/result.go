// Package result holds kdelta's data model: a result set is one kdelta run
// (or import) with its labels, its environment fingerprint and, per
// benchmark, every run that was attempted, measured, skipped or failed.
package result

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

// Schema names the JSON layout written by this version of kdelta.
const Schema = "kdelta/result/v1"

// A Set is the result of one kdelta run: the unit that is stored, shown and
// compared.
type Set struct {
	Schema  string               `json:"schema"`
	ID      string               `json:"id"`
	Created time.Time            `json:"created"`
	Tool    string               `json:"tool"`
	Command []string             `json:"command,omitempty"`
	Labels  map[string]string    `json:"labels"`
	Env     *sysinfo.Fingerprint `json:"env,omitempty"`
	// Conditions are the run conditions the set was measured under
	// (conditions.go): placement, policy, shield, counters, warm-up, the
	// tool's version; nil for an import, which does not know them.
	Conditions map[string]string `json:"conditions,omitempty"`
	Benchmarks []*Benchmark      `json:"benchmarks"`
	Warnings   []string          `json:"warnings,omitempty"`
	// Complete is false while runs are still being added, and stays false
	// when kdelta was interrupted or killed.
	Complete bool `json:"complete"`
}

// Better says which direction of a metric is an improvement. It is
// stats.Better, so that the statistics and the model have one word for a
// direction and one rule for it.
type Better = stats.Better

// The directions; Neither is a figure with no better side (a context
// switch), whose clear change is "changed".
const (
	Lower   = stats.Lower
	Higher  = stats.Higher
	Neither = stats.Neither
)

// Worse reports whether a relative change of the metric (B/A − 1) is for
// the worse. It is the one place a direction turns into good or bad
// (stats.Better.Worse, which the verdict uses): an empty Better means
// Lower, as for every time, everywhere.
func (m Metric) Worse(change float64) bool { return m.Better.Worse(change) }

// A Metric is what a benchmark reports per run.
type Metric struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Better Better `json:"better"`
	Doc    string `json:"doc,omitempty"`
}

// A Benchmark is one workload with one set of parameters, repeated.
type Benchmark struct {
	Workload string            `json:"workload"`
	Params   map[string]string `json:"params"`
	Metrics  []Metric          `json:"metrics"`
	Runs     []*Run            `json:"runs"`
	// Skipped holds the reason the workload cannot run here, if it cannot.
	Skipped string `json:"skipped,omitempty"`
	// Summaries hold, by metric name, figures known only as a summary (an
	// imported `perf stat -r` block: mean, standard error and n). They are
	// compared with Welch's t from the summary statistics, never as one
	// sample.
	Summaries map[string]Summary `json:"summaries,omitempty"`
	// Profiles are what perf sampled during extra runs of the benchmark
	// (kdelta run --profile). Sampling perturbs timing, so those runs are
	// kept here, never in Runs or in statistics.
	Profiles []Profile `json:"profiles,omitempty"`
}

// A Profile is a symbol table sampled by perf record during one run, or
// imported from a saved perf report or perf script text.
type Profile struct {
	// Source says where the profile came from: "perf record", or the
	// imported file and its format.
	Source string `json:"source,omitempty"`
	// Event is the event perf sampled: cycles when the PMU has it,
	// cpu-clock (perf's own fallback) otherwise.
	Event      string `json:"event,omitempty"`
	CallGraph  bool   `json:"call_graph,omitempty"`
	SystemWide bool   `json:"system_wide,omitempty"`
	// Samples is the total number of samples; SamplesEstimated says it was
	// derived from the percentages of a cut table rather than counted.
	Samples          int64 `json:"samples,omitempty"`
	SamplesEstimated bool  `json:"samples_estimated,omitempty"`
	// Ops is the number of operations the profiled run did; 0 when
	// unknown.
	Ops float64 `json:"ops,omitempty"`
	// Run is the profiled run itself, for its status and values.
	Run *Run `json:"run,omitempty"`
	// CutOff is the smallest overhead (percent) in a table that is, or may
	// be, cut: a symbol missing from it was below CutOff, not absent. 0
	// means every sampled symbol is listed.
	CutOff  float64         `json:"cutoff,omitempty"`
	Symbols []ProfileSymbol `json:"symbols,omitempty"`
	// Stacks are call stacks with their samples, heaviest first, when the
	// profile was recorded with call graphs.
	Stacks []ProfileStack `json:"stacks,omitempty"`
	// Annotated says annotations were taken (kdelta profile annotate):
	// Annotations hold the hottest symbols', and a profile recorded
	// before kdelta kept them has none.
	Annotated   bool                `json:"annotated,omitempty"`
	Annotations []ProfileAnnotation `json:"annotations,omitempty"`
	// Unavailable says why no profile was taken (perf missing, refused).
	Unavailable string   `json:"unavailable,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
}

// A ProfileSymbol is one row of a perf report: where samples landed.
type ProfileSymbol struct {
	// Overhead is the symbol's own share of all samples, in percent.
	Overhead float64 `json:"overhead"`
	// Children is its share with its callees (perf report --children).
	Children float64 `json:"children,omitempty"`
	Samples  int64   `json:"samples,omitempty"`
	Command  string  `json:"command,omitempty"`
	DSO      string  `json:"dso,omitempty"`
	Symbol   string  `json:"symbol,omitempty"`
	Kernel   bool    `json:"kernel,omitempty"`
}

// A ProfileStack is one call stack, leaf first, and its samples.
type ProfileStack struct {
	Samples int64          `json:"samples"`
	Frames  []ProfileFrame `json:"frames"`
}

// A ProfileFrame is one function of a call stack and the object it is in.
type ProfileFrame struct {
	Symbol string `json:"sym"`
	DSO    string `json:"dso,omitempty"`
}

// A Summary stands for n runs whose values were not kept.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	StdErr float64 `json:"stderr"`
}

// Run statuses.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusTimeout     = "timeout"
	StatusSkipped     = "skipped"
	StatusInterrupted = "interrupted"
)

// A Run is one repetition of a benchmark, executed in its own child process.
type Run struct {
	Index  int       `json:"index"`
	Warmup bool      `json:"warmup,omitempty"`
	Start  time.Time `json:"start"`
	Status string    `json:"status"`
	Reason string    `json:"reason,omitempty"`
	// Session names the session the run was measured in: one kdelta run
	// invocation, one boot of a kernel under test. Runs of one session
	// share its state (the host's load and frequency, cache and memory
	// placement), so a comparison across sessions has the session, not the
	// run, as its unit of replication. The interleaved cells of kdelta ab
	// share their sessions. An empty Session (sets written before sessions
	// were recorded, imports) is the set's own single session.
	Session string `json:"session,omitempty"`
	// ExitCode is the child's exit status, or -1 when a signal ended it.
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// Resource usage of the child and its reaped descendants, from wait4,
	// and the wall time from its start to its exit.
	WallSec    float64 `json:"wall_s"`
	UserSec    float64 `json:"user_s"`
	SysSec     float64 `json:"sys_s"`
	VolCtxSw   int64   `json:"voluntary_ctxsw"`
	InvolCtxSw int64   `json:"involuntary_ctxsw"`
	MaxRSSKiB  int64   `json:"maxrss_kib"`
	// Lacks holds the figures above that the run does not have: an import
	// has only what its tool printed (a pasted table, none of them). A
	// lacking figure is 0 here, absent from JSON, and never shown; a run
	// that kdelta measured lacks none.
	Lacks Figures `json:"-"`
	// Values holds the workload's metrics by name.
	Values map[string]float64 `json:"values,omitempty"`
	// Ops is the number of operations the run performed, for per-operation
	// figures (context switches per op, syscalls per op).
	Ops float64 `json:"ops,omitempty"`
	// Counts are the workload's own tallies (messages sent, calls made).
	Counts  map[string]float64 `json:"counts,omitempty"`
	Latency *Latency           `json:"latency,omitempty"`
	// Info is what the child saw of itself: CPUs allowed, policy, mode.
	Info map[string]string `json:"info,omitempty"`
	// Counters are the perf events counted over the run's child and every
	// task it created (or system-wide with -a).
	Counters []Counter `json:"counters,omitempty"`
	// Monitors are system files read before and after the run (or over a
	// window inside it), as deltas.
	Monitors []Monitor `json:"monitors,omitempty"`
	// Functions are the kernel functions timed in the kernel during the
	// run's timed part (kdelta run --funclatency), in the order asked.
	Functions []Function `json:"functions,omitempty"`
}

// Figures is a set of the figures of a run that a source may not give,
// for Run.Lacks.
type Figures uint8

// The figures a run may lack; figureKeys holds their JSON keys.
const (
	FigExitCode Figures = 1 << iota
	FigWall
	FigUser
	FigSys
	FigVolCtxSw
	FigInvolCtxSw
	FigMaxRSS

	// FigAll is every figure: what a run read from another tool's output
	// starts out lacking.
	FigAll = FigExitCode | FigWall | FigUser | FigSys | FigVolCtxSw | FigInvolCtxSw | FigMaxRSS
	// FigCtxSw is both context-switch figures.
	FigCtxSw = FigVolCtxSw | FigInvolCtxSw
)

// figureKeys are the JSON keys of the figures, in the order of the bits.
var figureKeys = []string{"exit_code", "wall_s", "user_s", "sys_s", "voluntary_ctxsw", "involuntary_ctxsw", "maxrss_kib"}

// Has tells whether r has every figure of f.
func (r *Run) Has(f Figures) bool { return r.Lacks&f == 0 }

// MarshalJSON leaves out the figures the run lacks, so that a figure no
// one measured is never read as 0.
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	data, err := json.Marshal(plain(r))
	if err != nil || r.Lacks == 0 {
		return data, err
	}
	drop := map[string]bool{}
	for i, k := range figureKeys {
		if r.Lacks&(1<<i) != 0 {
			drop[k] = true
		}
	}
	// Drop the keys from the encoded object, keeping the order of the
	// others.
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if drop[key.(string)] {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a run, taking a figure whose key is absent as one
// the run lacks.
func (r *Run) UnmarshalJSON(data []byte) error {
	type plain Run
	// The outer fields take their keys from the embedded run's, so each
	// figure's presence is seen in one pass.
	v := struct {
		*plain
		ExitCode   *int     `json:"exit_code"`
		WallSec    *float64 `json:"wall_s"`
		UserSec    *float64 `json:"user_s"`
		SysSec     *float64 `json:"sys_s"`
		VolCtxSw   *int64   `json:"voluntary_ctxsw"`
		InvolCtxSw *int64   `json:"involuntary_ctxsw"`
		MaxRSSKiB  *int64   `json:"maxrss_kib"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	r.Lacks = 0
	figure(r, FigExitCode, v.ExitCode, &r.ExitCode)
	figure(r, FigWall, v.WallSec, &r.WallSec)
	figure(r, FigUser, v.UserSec, &r.UserSec)
	figure(r, FigSys, v.SysSec, &r.SysSec)
	figure(r, FigVolCtxSw, v.VolCtxSw, &r.VolCtxSw)
	figure(r, FigInvolCtxSw, v.InvolCtxSw, &r.InvolCtxSw)
	figure(r, FigMaxRSS, v.MaxRSSKiB, &r.MaxRSSKiB)
	return nil
}

// figure sets *into to what was read, or to 0 and marks f lacking when
// nothing was.
func figure[T int | int64 | float64](r *Run, f Figures, read, into *T) {
	if read == nil {
		r.Lacks |= f
		*into = 0
		return
	}
	*into = *read
}

// A Counter is one perf event's count over a run.
type Counter struct {
	// Name is the event as the user named it (perf's names:
	// context-switches, cycles, raw_syscalls:sys_enter).
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	// EnabledNs and RunningNs are the event's time_enabled and
	// time_running; when they differ the event was multiplexed and Value is
	// scaled by EnabledNs/RunningNs.
	EnabledNs uint64 `json:"time_enabled_ns,omitempty"`
	RunningNs uint64 `json:"time_running_ns,omitempty"`
	// Unsupported says why the event was not counted ("not supported" for
	// hardware events without a PMU, "permission denied" under
	// perf_event_paranoid). An unsupported counter has no value, never 0.
	Unsupported string `json:"unsupported,omitempty"`
}

// MarshalJSON leaves out the value of a counter that was not counted, so
// "not supported" is never read as 0.
func (c Counter) MarshalJSON() ([]byte, error) {
	type plain Counter
	if c.Unsupported == "" {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		Name        string `json:"name"`
		Unit        string `json:"unit,omitempty"`
		Unsupported string `json:"unsupported"`
	}{c.Name, c.Unit, c.Unsupported})
}

// Scaled tells whether the counter was multiplexed.
func (c Counter) Scaled() bool { return c.RunningNs > 0 && c.RunningNs < c.EnabledNs }

// A Monitor is the change of a system file's counters over a run or a
// window of it.
type Monitor struct {
	// Name is the monitor (stat, softirqs, schedstat, interrupts).
	Name string `json:"name"`
	// Window is empty for the whole run, else "@20s+5s" (after 20 s, 5 s).
	Window string `json:"window,omitempty"`
	// Unavailable says why nothing was read ("not available: /proc/schedstat
	// does not exist").
	Unavailable string `json:"unavailable,omitempty"`
	// Values are deltas keyed by a flat name: "ctxt", "cpu1.sys",
	// "softirq.RCU", "cpu0.domain0.lb_count.idle".
	Values map[string]float64 `json:"values,omitempty"`
	// Text holds what the file says that is not a number, as the later
	// snapshot read it: schedstat's version ("version": "17") and each
	// CPU's scheduling domains, their span and name
	// ("cpu0.domain0.span": "00000003", "cpu0.domain0.name": "SMT").
	Text map[string]string `json:"text,omitempty"`
	// Notes explain the values ("schedstats disabled: counters stay zero").
	Notes []string `json:"notes,omitempty"`
}

// A Function is what the kernel's tracer recorded of one kernel function
// during a run's timed part: every call that returned inside it, timed by
// the kernel from entry to return, time asleep included.
type Function struct {
	// Name is the function as the kernel names it (synchronize_rcu).
	Name string `json:"name"`
	// Tracer is what timed the calls: function_graph.
	Tracer string `json:"tracer"`
	// Scope is system (calls by any task, as the seed mail measured) or
	// tasks (calls by the workload's tasks only).
	Scope string `json:"scope"`
	// Calls summarises the calls' latencies, in us; Calls.Count is the
	// number of calls, and Raw holds every latency when there are at most
	// MaxRaw.
	Calls Latency `json:"calls"`
	// Hist counts the calls by latency in log2 buckets of microseconds,
	// the empty buckets left out.
	Hist []Bucket `json:"hist,omitempty"`
	// Lost is the number of trace events the buffer could not keep during
	// the window (all the functions of the run share the buffer): when it
	// is not 0 the figures cover only the calls that were kept.
	Lost int64 `json:"lost,omitempty"`
}

// A Bucket of a latency histogram counts the values v with Lo <= v < Hi.
type Bucket struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int64   `json:"count"`
}

// Measured tells whether the run produced values that count in statistics.
func (r *Run) Measured() bool { return r.Status == StatusOK && !r.Warmup }

// Latency summarises the operations inside one run. Raw keeps every value
// when there are at most MaxRaw of them. Count and the percentiles are 0,
// and absent from JSON, when the source did not give them (a pasted table
// of mean, min and max); a measured percentile of operations is never 0.
type Latency struct {
	Unit  string    `json:"unit"`
	Count int       `json:"count,omitempty"`
	Mean  float64   `json:"mean"`
	Min   float64   `json:"min"`
	P50   float64   `json:"p50,omitempty"`
	P90   float64   `json:"p90,omitempty"`
	P99   float64   `json:"p99,omitempty"`
	Max   float64   `json:"max"`
	Raw   []float64 `json:"raw,omitempty"`
}

// MaxRaw is the most raw latencies a run keeps.
const MaxRaw = 100000

// Measured returns the runs of b that count in statistics.
func (b *Benchmark) Measured() []*Run {
	var rs []*Run
	for _, r := range b.Runs {
		if r.Measured() {
			rs = append(rs, r)
		}
	}
	return rs
}

// Values returns metric m over the measured runs of b, in run order.
func (b *Benchmark) Values(m string) []float64 {
	var v []float64
	for _, r := range b.Measured() {
		if x, ok := r.Values[m]; ok {
			v = append(v, x)
		}
	}
	return v
}

// SessionValues returns metric m over the measured runs of b grouped by
// session, the sessions in the order of their first run and the runs of
// each in run order, with the sessions' names ("" for the set's own single
// session, which runs without a session belong to).
func (b *Benchmark) SessionValues(m string) (values [][]float64, sessions []string) {
	at := map[string]int{}
	for _, r := range b.Measured() {
		x, ok := r.Values[m]
		if !ok {
			continue
		}
		i, seen := at[r.Session]
		if !seen {
			i = len(values)
			at[r.Session] = i
			values = append(values, nil)
			sessions = append(sessions, r.Session)
		}
		values[i] = append(values[i], x)
	}
	return values, sessions
}

// Key names a benchmark within a set: its workload and its parameters.
func (b *Benchmark) Key() string { return b.Workload + ":" + FormatParams(b.Params) }
