package abtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/workload"
)

// Overrides are a session's settings as the command line gives them, to
// be laid over its job file by Job. A setting counts where Given says its
// flag was given, or where the job file leaves its key unset: the flag's
// default then stands in for the file's. Errors name the flags.
type Overrides struct {
	// File is the job file (-f); "" for none.
	File string
	// Repeat, Warmup, FIFO, CPUs and Timeout are -r, --warmup, --fifo,
	// --cpus and --timeout.
	Repeat, Warmup, FIFO int
	CPUs                 string
	// Shield is --shield: CPUs to shield for the session.
	Shield  string
	Timeout time.Duration
	// Labels are --label k=v, added to the file's.
	Labels []string
	// Order and Seed are kdelta ab's --order and --seed. kdelta run has
	// neither: with Order "" the file's order and seed (or the defaults)
	// stay.
	Order string
	Seed  uint64
	// UntilConclusive and MaxRuns are --until-conclusive and --max-runs.
	UntilConclusive bool
	MaxRuns         int
	// Set, Variants and Matrix are --set, --variant and --matrix as given:
	// the settings are added to the file's, the variants replace the
	// file's, and an axis replaces the file's axis of the same key.
	Set, Variants, Matrix []string
	// FuncLatency and FuncScope are --funclatency FUNC[,FUNC...] and
	// --funclatency-scope.
	FuncLatency, FuncScope string
	// Quick (the quick suite) and Workloads (as the command line names
	// them) replace the file's workloads when either is given.
	Quick     bool
	Workloads []string
	// Given tells whether the flag of this name ("repeat",
	// "until-conclusive") was given on the command line; nil: none was.
	Given func(flag string) bool
}

// Job reads the job file, if any, and lays the overrides over it.
func (o Overrides) Job() (*job.Job, error) {
	j := &job.Job{Order: "interleaved", Labels: map[string]string{}}
	if o.File != "" {
		var err error
		if j, err = job.Load(o.File); err != nil {
			return nil, err
		}
	}
	if err := o.runs(j); err != nil {
		return nil, err
	}
	if err := o.knobs(j); err != nil {
		return nil, err
	}
	if err := o.workloads(j); err != nil {
		return nil, err
	}
	return j, nil
}

// over tells whether the flag's value goes into the job: given on the
// command line, or its key left unset by the file.
func (o Overrides) over(j *job.Job, flag, key string) bool {
	return o.Given != nil && o.Given(flag) || !j.Given(key)
}

// runs lays the settings of the runs over j: repeats, placement, labels,
// order and the stopping rule.
func (o Overrides) runs(j *job.Job) error {
	if o.over(j, "repeat", "repeat") {
		j.Repeat = o.Repeat
	}
	if o.over(j, "warmup", "warmup") {
		j.Warmup = o.Warmup
	}
	if o.over(j, "fifo", "fifo") {
		j.FIFO = o.FIFO
	}
	if j.Repeat < 1 {
		return fmt.Errorf("-r/--repeat: must be at least 1, got %d", j.Repeat)
	}
	if j.Warmup < 0 {
		return fmt.Errorf("--warmup: must not be negative, got %d", j.Warmup)
	}
	if o.over(j, "cpus", "cpus") {
		j.CPUs = o.CPUs
	}
	if o.over(j, "shield", "shield") {
		j.Shield = o.Shield
	}
	if o.over(j, "timeout", "timeout") {
		j.Timeout = o.Timeout
	}
	for _, l := range o.Labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return fmt.Errorf("--label: %q is not key=value", l)
		}
		j.Labels[k] = v
	}
	if o.Order != "" && o.over(j, "order", "order") {
		j.Order = o.Order
	}
	if !slices.Contains(job.Orders, j.Order) {
		return fmt.Errorf("--order: unknown order %q (one of %s)", j.Order, strings.Join(job.Orders, ", "))
	}
	if o.Order != "" && o.over(j, "seed", "seed") {
		j.Seed = o.Seed
	}
	if o.over(j, "until-conclusive", "until_conclusive") {
		j.UntilConclusive = o.UntilConclusive
	}
	if o.over(j, "max-runs", "max_runs") {
		j.MaxRuns = o.MaxRuns
	}
	if j.UntilConclusive && j.MaxRuns < j.Repeat {
		return fmt.Errorf("--max-runs: %d is fewer than -r %d", j.MaxRuns, j.Repeat)
	}
	return o.funcs(j)
}

// funcs lays --funclatency and --funclatency-scope over j.
func (o Overrides) funcs(j *job.Job) error {
	if o.FuncLatency != "" && o.over(j, "funclatency", "funclatency") {
		fs, err := counter.ParseFuncs(o.FuncLatency)
		if err != nil {
			return fmt.Errorf("--funclatency: %w", err)
		}
		j.FuncLatency = fs
	}
	if o.FuncScope != "" && o.over(j, "funclatency-scope", "funclatency_scope") {
		j.FuncScope = o.FuncScope
	}
	if j.FuncScope != "" && !slices.Contains(counter.Scopes, j.FuncScope) {
		return fmt.Errorf("--funclatency-scope: unknown scope %q (%s)", j.FuncScope, strings.Join(counter.Scopes, " or "))
	}
	if j.FuncScope == counter.ScopeTasks && len(j.FuncLatency) == 0 {
		return errors.New("--funclatency-scope: tasks needs --funclatency FUNC")
	}
	return nil
}

// knobs lays --set, --variant and --matrix over j.
func (o Overrides) knobs(j *job.Job) error {
	for _, v := range o.Set {
		st, err := knob.Parse(v)
		if err != nil {
			return fmt.Errorf("--set: %w", err)
		}
		j.Set = append(j.Set, st)
	}
	if len(o.Variants) > 0 {
		j.Variants = nil
		for _, v := range o.Variants {
			vr, err := job.ParseVariant(v)
			if err != nil {
				return fmt.Errorf("--variant: %w", err)
			}
			if slices.ContainsFunc(j.Variants, func(o job.Variant) bool { return o.Name == vr.Name }) {
				return fmt.Errorf("--variant: %s given twice", vr.Name)
			}
			j.Variants = append(j.Variants, vr)
		}
	}
	for _, m := range o.Matrix {
		a, err := job.ParseAxis(m)
		if err != nil {
			return fmt.Errorf("--matrix: %w", err)
		}
		if i := slices.IndexFunc(j.Matrix, func(o job.Axis) bool { return o.Key == a.Key }); i >= 0 {
			j.Matrix[i] = a
		} else {
			j.Matrix = append(j.Matrix, a)
		}
	}
	for _, a := range j.Matrix {
		for _, v := range j.Variants {
			for _, st := range v.Set {
				if a.Knob != nil && st.Knob.Path == a.Knob.Path {
					return fmt.Errorf("%s: variant %s sets the same knob", a.Where, v.Name)
				}
			}
		}
	}
	return nil
}

// workloads replaces the file's workloads with the quick suite and those
// the command line names, when it gives any.
func (o Overrides) workloads(j *job.Job) error {
	if !o.Quick && len(o.Workloads) == 0 {
		return nil
	}
	j.Workloads = nil
	if o.Quick {
		q, err := workload.QuickSuite()
		if err != nil {
			return err
		}
		for _, sp := range q {
			j.Workloads = append(j.Workloads, job.Workload{Name: sp.Workload.Name(), Params: sp.Values, Where: "--quick"})
		}
	}
	for _, a := range o.Workloads {
		sp, err := workload.ParseSpec(a)
		if err != nil {
			return err
		}
		j.Workloads = append(j.Workloads, job.Workload{Name: sp.Workload.Name(), Params: sp.Values, Given: sp.Given, Where: a})
	}
	return nil
}
