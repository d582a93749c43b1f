// Package workload defines kdelta's built-in benchmarks: what a workload
// declares (parameters, metrics), how its parameters are parsed, and the
// Task through which a workload, running inside a measured child process,
// reports what it measured.
package workload

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// A Workload is one benchmark kdelta can run.
//
// Run executes in a child process of its own (see internal/runner), on the
// main goroutine, which is locked to its OS thread. It sets up, calls
// t.Ready() once just before it creates the tasks it measures (the parent
// opens counters at that point), measures, and reports through t.
type Workload interface {
	Name() string
	// Doc is one line for `kdelta list`.
	Doc() string
	Params() []Param
	Metrics() []result.Metric
	Run(t *Task) error
}

// A Validator is a Workload that checks its parameters beyond their kinds
// (combinations, lists) in the parent, before anything runs.
type Validator interface {
	Validate(v Values) error
}

// An AutoResolver is a Workload with a parameter whose value "auto"
// depends on the machine; ResolveAuto replaces it in v, in the parent,
// so that the run records the concrete value.
type AutoResolver interface {
	ResolveAuto(v Values)
}

// A Prechecker is a Workload that can tell, in the parent and before any
// run, that it cannot run on this machine (missing privilege or kernel
// feature). A non-empty reason marks the benchmark skipped.
type Prechecker interface {
	Precheck(v Values) (skipReason string)
}

// A ParamMetrics is a Workload whose metrics depend on its parameters.
// Metrics declares every metric it may report; MetricsFor returns the ones
// a run with v reports, with the unit and direction v gives them.
type ParamMetrics interface {
	MetricsFor(v Values) []result.Metric
}

// MetricsOf returns the metrics a run of sp reports.
func MetricsOf(sp Spec) []result.Metric {
	if pm, ok := sp.Workload.(ParamMetrics); ok {
		return pm.MetricsFor(sp.Values)
	}
	return sp.Workload.Metrics()
}

// A WarmupSizer is a Workload whose warm-up need not be as long as a run.
// A loop of one operation is warm (binary paged in, caches and branch
// predictors trained, CPUs out of their idle states) long before a
// measured run's count: its warm-ups are capped, which saves a run's worth
// of time per warm-up (under emulation, where a null syscall costs a
// microsecond, most of a `kdelta vm` session).
type WarmupSizer interface {
	WarmupValues(v Values) Values
}

// WarmupSpec returns the spec a warm-up run of sp executes: sp itself, or
// its capped copy, with the parameters that differ as "k=v" text.
func WarmupSpec(sp Spec) (Spec, string) {
	ws, ok := sp.Workload.(WarmupSizer)
	if !ok {
		return sp, ""
	}
	w := ws.WarmupValues(sp.Values)
	var diff []string
	for _, p := range sp.Workload.Params() {
		if w[p.Name] != sp.Values[p.Name] {
			diff = append(diff, p.Name+"="+w[p.Name])
		}
	}
	if len(diff) == 0 {
		return sp, ""
	}
	sp.Values = w
	return sp, strings.Join(diff, ",")
}

// capInt returns a copy of v with the integer parameter name at most max.
func capInt(v Values, name string, max int) Values {
	w := make(Values, len(v))
	for k, x := range v {
		w[k] = x
	}
	if v.Int(name) > max {
		w[name] = strconv.Itoa(max)
	}
	return w
}

// ErrSkip wraps the reason a workload cannot run here.
type ErrSkip struct{ Reason string }

func (e *ErrSkip) Error() string { return "skipped: " + e.Reason }

// Skip returns an error that marks the run skipped with the reason.
func Skip(format string, args ...any) error {
	return &ErrSkip{Reason: fmt.Sprintf(format, args...)}
}

// SkipReason returns the reason when err is a skip.
func SkipReason(err error) (string, bool) {
	var s *ErrSkip
	if errors.As(err, &s) {
		return s.Reason, true
	}
	return "", false
}

var registry = map[string]Workload{}

// Register adds w to the registry. It panics on a duplicate name, which is
// a programming error.
func Register(w Workload) {
	if _, dup := registry[w.Name()]; dup {
		panic("workload registered twice: " + w.Name())
	}
	registry[w.Name()] = w
}

// Lookup returns the workload called name.
func Lookup(name string) (Workload, bool) {
	w, ok := registry[name]
	return w, ok
}

// All returns every registered workload, by name.
func All() []Workload {
	ws := make([]Workload, 0, len(registry))
	for _, w := range registry {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].Name() < ws[j].Name() })
	return ws
}

// Names returns the registered names, sorted.
func Names() []string {
	var n []string
	for _, w := range All() {
		n = append(n, w.Name())
	}
	return n
}
