// Package abtest runs a live A/B session of kernel settings: the cells of
// a job (variants of knobs, a matrix of knobs and parameters), each cell's
// runs under its knobs, interleaved run by run so that the machine's drift
// falls on every cell alike, profiled, recorded and saved as they go, and
// every knob put back however the session ends. It is kdelta ab, and
// kdelta run given -f, --set or --matrix, without the command line: the
// options come in as a struct, and the result sets, their comparison and
// the warnings go out.
package abtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/outfile"
	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

// ErrNoWorkloads says a job names no workload.
var ErrNoWorkloads = errors.New("no workloads given")

// A Plan is what a job runs: its workloads, with the matrix's parameters
// expanded, and its cells.
type Plan struct {
	Specs []workload.Spec
	Cells []job.Cell
}

// NewPlan checks j and makes its plan. A job whose variants boot kernels
// is refused (kdelta vm runs those), and one without workloads is
// ErrNoWorkloads.
func NewPlan(j *job.Job) (Plan, error) {
	for _, v := range j.Variants {
		if v.Booted() {
			return Plan{}, fmt.Errorf("%s: its variants boot kernels (kernel, append): run it with kdelta vm -f %s", j.File, j.File)
		}
	}
	if err := j.CheckSwept(); err != nil {
		return Plan{}, err
	}
	specs, err := j.Specs()
	if err != nil {
		return Plan{}, err
	}
	if len(specs) == 0 {
		return Plan{}, ErrNoWorkloads
	}
	if specs, err = job.ExpandParams(specs, j.Matrix); err != nil {
		return Plan{}, err
	}
	return Plan{Specs: specs, Cells: job.Cells(j.Set, j.Variants, j.Matrix)}, nil
}

// Options say what a session runs and where its results go.
type Options struct {
	// Job is the experiment: a job file with the command line laid over
	// it. Its Repeat, Warmup, Order, Seed, UntilConclusive and MaxRuns
	// are the session's.
	Job *job.Job
	// Plan is NewPlan(Job)'s.
	Plan Plan
	// Runner is the template of every run: placement, policy, timeout,
	// the counters' OnReady hooks, the command and version recorded, the
	// labels, and the fingerprint and tuning warnings taken before any
	// knob is set. Its Repeat and Warmup are the Job's. It is changed by
	// the session (labels, fingerprint, output).
	Runner *runner.Options
	// Output is where the sets are saved after every run: the file of a
	// session of one cell, the prefix of each cell's file otherwise
	// (PREFIX-NAME.json, see CellPath); "" for none.
	Output string
	// Record, when set, records a set in the store; it is called after
	// every run, and once more when the session is over.
	Record func(*result.Set) error
	// Schedstat turns kernel.sched_schedstats on for the session (a
	// schedstat monitor counts nothing without it).
	Schedstat bool
	// Profile, when set, profiles extra runs of every benchmark after the
	// measured ones, under each cell's knobs and out of the statistics.
	Profile *Profile
	// Stats are the comparison's options: the verdicts between variants,
	// and what Job.UntilConclusive waits for.
	Stats stats.Options
	// Noise gives the host's session noise of a benchmark's metric, as
	// compare.Options.Noise; nil knows none (the prior stands in where
	// the variants were measured apart).
	Noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise
	// Until is the stopping rule of a session of one cell (kdelta run
	// --until-conclusive --baseline REF, against a baseline the caller
	// resolved); the zero Until is Repeat runs. A session of several
	// cells ignores it: with Job.UntilConclusive it adds rounds while a
	// variant's verdict against the first is inconclusive.
	Until runner.Until
	// Fingerprint takes the machine's fingerprint with a cell's knobs
	// set; nil takes none.
	Fingerprint func() *sysinfo.Fingerprint
	// Knobs are the knob session's options (Root and JournalDir for
	// tests; the command is Runner's). The journal of --funclatency's
	// tracefs files goes to the same JournalDir.
	Knobs knob.Options
	// Tracefs is where --funclatency finds tracefs; "" finds it
	// ($KDELTA_TRACEFS).
	Tracefs string
	// Warn, when set, is called with each warning as it arises, so that
	// a session of many minutes says a tuning problem when it starts;
	// every warning is in Result.Warnings too.
	Warn func(string)
}

// Profile says how the extra, profiled runs are taken.
type Profile struct {
	Options kprofile.Options
	Runs    int // profiled runs per benchmark and cell
}

// A Result is what a session did.
type Result struct {
	// Cells are the job's cells, and Sets their result sets, in order;
	// Paths the file each set was saved in ("" for none).
	Cells []job.Cell
	Sets  []*result.Set
	Paths []string
	// Knobs tells whether the session set knobs, and RestoreErr why some
	// could not be put back (kdelta restore tries again).
	Knobs      bool
	RestoreErr error
	// Warnings are the session's warnings, each once.
	Warnings []string
	// Compare is the comparison of the variants, the first the baseline,
	// when there are two or more and no knob is swept (the sweep has its
	// own table); nil otherwise or when the session failed.
	Compare *compare.Result
	// Verdicts are, at each knob point, each variant against the first
	// on each benchmark's first metric; Pending those still inconclusive.
	Verdicts []job.Verdict
	Pending  []job.Verdict
}

// Run runs the session o describes. It opens the knobs (every file
// checked and journalled, every variant's values tried once) before
// anything runs, and puts them back at the end, on error and on interrupt. The
// Result holds whatever ran, also when the error is runner.ErrInterrupted
// (the sets then incomplete); it is nil when nothing could start.
func Run(ctx context.Context, o Options) (*Result, error) {
	// The functions first: what the kernel cannot time refuses the
	// session before a knob is touched.
	fl, err := openFuncLatency(o)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := fl.Close(); err != nil && o.Warn != nil {
			o.Warn(fmt.Sprintf("--funclatency: %v (kdelta restore tries again)", err))
		}
	}()
	s, err := newSession(o)
	if err != nil {
		return nil, err
	}
	if s.knobs != nil {
		// Already put back on the way out, unless the session ended
		// before that: then now, whatever happened.
		defer func() {
			if err := s.knobs.Restore(); err != nil {
				s.warn(err.Error())
			}
		}()
	}
	defer counter.SessionSchedstats(o.Schedstat, "/", func(err error) { s.warn(err.Error()) })()
	if len(s.res.Cells) == 1 {
		err = s.runOne(ctx)
	} else {
		err = s.runCells(ctx)
	}
	if err == nil {
		err = s.compare()
	}
	return s.res, err
}

// openFuncLatency sets up the timing of the job's kernel functions
// (--funclatency) and gives every run its window and metrics; nil when
// the job times none.
func openFuncLatency(o Options) (*counter.FuncLatency, error) {
	j := o.Job
	if len(j.FuncLatency) == 0 {
		return nil, nil
	}
	fl, err := counter.OpenFuncLatency(counter.FuncOptions{Funcs: j.FuncLatency, Scope: j.FuncScope,
		Tracefs: o.Tracefs, JournalDir: o.Knobs.JournalDir, Command: o.Runner.Command})
	if err != nil {
		return nil, fmt.Errorf("--funclatency: %w", err)
	}
	o.Runner.Window, o.Runner.Metrics = fl.Window(), fl.Metrics()
	if o.Runner.Conditions == nil {
		o.Runner.Conditions = map[string]string{}
	}
	timed := strings.Join(j.FuncLatency, ",")
	if j.FuncScope != "" {
		timed += " (" + j.FuncScope + ")"
	}
	o.Runner.Conditions[result.CondFuncLatency] = timed
	return fl, nil
}

// A session is one Run under way.
type session struct {
	o      Options
	specs  []workload.Spec
	knobs  *knob.Session
	shield *sysinfo.Shield // the raised shield, nil for none
	res    *Result
}

// newSession opens the session's knobs.
func newSession(o Options) (*session, error) {
	j, cells := o.Job, o.Plan.Cells
	if len(cells) == 0 {
		return nil, errors.New("abtest: no plan (NewPlan)")
	}
	s := &session{o: o, specs: o.Plan.Specs, res: &Result{Cells: cells, Paths: make([]string, len(cells))}}
	if o.Output != "" {
		for i, c := range cells {
			s.res.Paths[i] = o.Output
			if len(cells) > 1 {
				s.res.Paths[i] = CellPath(o.Output, c.Name)
			}
		}
	}
	opt := o.Runner
	opt.Repeat, opt.Warmup = j.Repeat, j.Warmup
	for k, v := range j.Labels {
		opt.Labels[k] = v
	}
	// Host and kernel, as kdelta run gives its sets: the cells' sets are
	// started without a fingerprint, which each takes with its knobs set.
	runner.DefaultLabels(opt.Labels, opt.Env)
	shield, err := shieldCPUs(j, opt.CPUs)
	if err != nil {
		return nil, err
	}
	if groups := job.KnobGroups(cells); anySetting(groups) || shield != nil {
		ko := o.Knobs
		ko.Command, ko.Shield = opt.Command, shield
		if s.knobs, err = knob.Open(groups, ko); err != nil {
			return nil, err
		}
		s.res.Knobs = true
		fail := func(err error) (*session, error) {
			if rerr := s.knobs.Restore(); rerr != nil {
				s.warn(rerr.Error())
			}
			return nil, err
		}
		if err := s.knobs.Check(groups); err != nil {
			return fail(err)
		}
		// The shield goes up last, once every knob is known to take
		// its values, and stays up for the whole session.
		if s.shield, err = s.knobs.RaiseShield(); err != nil {
			return fail(err)
		}
		if s.shield != nil {
			opt.Cgroup = s.knobs.ShieldCgroup()
			if opt.Cgroup.V1Home == "" && opt.CPUs != nil {
				// A child cloned into a v2 partition has its CPUs,
				// and the spawner, outside, may not ask for them.
				if sys.FormatCPUList(opt.CPUs) != s.shield.CPUs {
					return fail(fmt.Errorf("--cpus %s: under a cgroup v2 shield the runs have every CPU of --shield %s", sys.FormatCPUList(opt.CPUs), s.shield.CPUs))
				}
				opt.CPUs = nil
			}
			opt.RunInfo = map[string]string{"shield": s.shield.String()}
		}
	}
	return s, nil
}

// shieldCPUs reads the job's shield, whose CPUs must hold the runs' own
// (--cpus): nil when it has none.
func shieldCPUs(j *job.Job, cpus []int) ([]int, error) {
	if j.Shield == "" {
		return nil, nil
	}
	shield, err := sys.ParseCPUList(j.Shield)
	if err != nil {
		return nil, fmt.Errorf("--shield: %w", err)
	}
	for _, c := range cpus {
		if !slices.Contains(shield, c) {
			return nil, fmt.Errorf("--cpus %s: CPU %d is outside --shield %s, where the runs go", sys.FormatCPUList(cpus), c, sys.FormatCPUList(shield))
		}
	}
	return shield, nil
}

func (s *session) warn(w string) {
	for _, o := range s.res.Warnings {
		if o == w {
			return
		}
	}
	s.res.Warnings = append(s.res.Warnings, w)
	if s.o.Warn != nil {
		s.o.Warn(w)
	}
}

// restore puts the knobs back, once the runs are over, and returns err,
// or why a knob could not be put back when err is nil.
func (s *session) restore(err error) error {
	if s.knobs == nil {
		return err
	}
	if s.res.RestoreErr = s.knobs.Restore(); s.res.RestoreErr != nil && err == nil {
		err = s.res.RestoreErr
	}
	for _, w := range s.knobs.Warnings() {
		s.warn(w)
	}
	return err
}

// runOne runs a session of one cell, whose knobs (if any) are set once
// for the whole session, the way kdelta run runs.
func (s *session) runOne(ctx context.Context) error {
	opt, cell, output := s.o.Runner, s.res.Cells[0], s.res.Paths[0]
	var values map[string]string
	if s.knobs != nil {
		if err := s.knobs.Apply(cell.Settings); err != nil {
			return err
		}
		values = s.knobs.Values()
		// The fingerprint, taken before, is taken again with the knobs set.
		opt.Env = s.fingerprint()
		opt.Warnings = sysinfo.Warnings(opt.Env, opt.CPUs)
	}
	for k, v := range cell.Labels {
		opt.Labels[k] = v
	}
	for _, w := range opt.Warnings {
		s.warn(w)
	}
	opt.Output, opt.Record = output, s.o.Record
	if outfile.Stream(output) {
		// A device or pipe (-o /dev/stdout) takes the set once, below.
		opt.Output = ""
	}
	set, err := runner.RunUntil(ctx, s.specs, opt, s.o.Until)
	s.res.Sets = []*result.Set{set}
	stampKnobs(set, values)
	if err == nil {
		err = s.profile(ctx, 0)
	}
	err = s.restore(err)
	if output != "" {
		if serr := result.Save(output, set); serr != nil && err == nil {
			err = serr
		}
	}
	if s.o.Record != nil {
		if rerr := s.o.Record(set); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// runCells runs a session of several cells with job.Run, interleaved,
// then their profiled runs.
func (s *session) runCells(ctx context.Context) error {
	j, opt := s.o.Job, s.o.Runner
	warned := false
	ro := job.RunOptions{
		Runner:   opt,
		Order:    j.Order,
		Seed:     j.Seed,
		Knobs:    s.knobs,
		Progress: opt.Progress,
		Env: func() (*sysinfo.Fingerprint, []string) {
			env := s.fingerprint()
			ws := sysinfo.Warnings(env, opt.CPUs)
			// The first cell's tuning check speaks for the machine;
			// every set keeps its own.
			if !warned {
				for _, w := range ws {
					s.warn(w)
				}
				warned = true
			}
			return env, ws
		},
		Save: s.save,
	}
	if j.UntilConclusive {
		ro.Until = runner.Until{Batch: 1, MaxRuns: j.MaxRuns, MoreOf: s.pending}
	}
	sets, err := job.Run(ctx, s.res.Cells, s.specs, ro)
	s.res.Sets = sets
	if err == nil {
		// Profiled runs, each under its cell's knobs, after every
		// measured run and out of the statistics.
		for i, set := range sets {
			if s.knobs != nil {
				if err = s.knobs.Apply(s.res.Cells[i].Settings); err != nil {
					break
				}
			}
			if err = s.profile(ctx, i); err != nil {
				break
			}
			if err = s.record(set); err != nil {
				break
			}
		}
	}
	return s.restore(err)
}

// CompareOptions are the options of every comparison of the cells.
func (o Options) CompareOptions() compare.Options {
	return compare.Options{Stats: o.Stats, Noise: o.Noise}
}

// pending is the question of a session of several cells: while any
// variant's question against the first is open (compare.Question.Open),
// every benchmark of every cell is open, as a round runs every cell.
func (s *session) pending(sets []*result.Set) [][]bool {
	open := len(pendingOf(job.Verdicts(s.res.Cells, sets, s.o.CompareOptions()))) > 0
	out := make([][]bool, len(sets))
	for i, set := range sets {
		out[i] = make([]bool, len(set.Benchmarks))
		for k := range out[i] {
			out[i][k] = open
		}
	}
	return out
}

// save records cell i's set and writes its file.
func (s *session) save(i int, set *result.Set) error {
	if err := s.record(set); err != nil {
		return err
	}
	if s.res.Paths[i] == "" {
		return nil
	}
	return result.Save(s.res.Paths[i], set)
}

func (s *session) record(set *result.Set) error {
	if s.o.Record == nil {
		return nil
	}
	return s.o.Record(set)
}

// fingerprint takes the machine's fingerprint, with the shield the runs
// have.
func (s *session) fingerprint() *sysinfo.Fingerprint {
	if s.o.Fingerprint == nil {
		return nil
	}
	fp := s.o.Fingerprint()
	if fp != nil && s.shield != nil {
		sh := *s.shield
		fp.Shield = &sh
		// The fingerprint reads kdelta's own cgroup, which the shield
		// moved off the CPUs; the runs are in the shield's.
		fp.Cgroup.Cpuset = sysinfo.Fact{Value: sh.CPUs, Source: "the shield (" + knob.ShieldCpuset + ")"}
	}
	return fp
}

// profile does cell i's profiled runs, if asked for, and saves its set
// again with them.
func (s *session) profile(ctx context.Context, i int) error {
	p := s.o.Profile
	if p == nil {
		return nil
	}
	set := s.res.Sets[i]
	err := kprofile.Runs(ctx, set, s.specs, s.o.Runner, p.Options, p.Runs)
	if path := s.res.Paths[i]; path != "" {
		if serr := result.Save(path, set); serr != nil {
			return serr
		}
	}
	return err
}

// compare fills in the comparison of the cells.
func (s *session) compare() error {
	j, r := s.o.Job, s.res
	if len(r.Cells) < 2 {
		return nil
	}
	knobAxes := 0
	for _, a := range j.Matrix {
		if a.Knob != nil {
			knobAxes++
		}
	}
	if len(j.Variants) >= 2 && knobAxes == 0 {
		ins := make([]compare.Input, len(r.Sets))
		for i, set := range r.Sets {
			ins[i] = compare.Input{Name: r.Cells[i].Name, Set: set}
		}
		c, err := compare.Compare(ins, s.o.CompareOptions())
		if err != nil {
			return err
		}
		r.Compare = c
	}
	r.Verdicts = job.Verdicts(r.Cells, r.Sets, s.o.CompareOptions())
	r.Pending = pendingOf(r.Verdicts)
	return nil
}

// pendingOf lists the verdicts --until-conclusive still waits for: those
// whose question is open.
func pendingOf(vs []job.Verdict) []job.Verdict {
	var out []job.Verdict
	for _, v := range vs {
		if v.Open {
			out = append(out, v)
		}
	}
	return out
}

// stampKnobs records the knobs' values in every run of set.
func stampKnobs(set *result.Set, values map[string]string) {
	if len(values) == 0 {
		return
	}
	for _, b := range set.Benchmarks {
		for _, r := range b.Runs {
			if r.Info == nil {
				r.Info = map[string]string{}
			}
			for k, v := range values {
				r.Info[job.InfoPrefix+k] = v
			}
		}
	}
}

func anySetting(groups [][]knob.Setting) bool {
	for _, g := range groups {
		if len(g) > 0 {
			return true
		}
	}
	return false
}

// CellPath names a cell's result file: PREFIX-NAME.json, with characters
// unsafe in file names replaced.
func CellPath(prefix, name string) string {
	prefix = strings.TrimSuffix(prefix, ".json")
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '=', r == '+':
			return r
		}
		return '_'
	}, name)
	return prefix + "-" + clean + ".json"
}
