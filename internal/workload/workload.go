// Package workload defines kdelta's built-in benchmarks: what a workload
// declares (parameters, metrics), how its parameters are parsed, and the
// Task through which a workload, running inside a measured child process,
// reports what it measured.
package workload

import (
	"errors"
	"fmt"
	"sort"

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
