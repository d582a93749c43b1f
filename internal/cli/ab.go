package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/abtest"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

func newABCmd() *cobra.Command {
	var s sessionFlags
	c := &cobra.Command{
		Use:   "ab --variant NAME:KNOB=V[,KNOB=V...] --variant NAME2:... [flags] -- WORKLOAD...",
		Short: "A/B test kernel knobs live: variants interleaved run by run, knobs restored, verdicts",
		Long: `Run the workloads under each variant, interleaved run by run (A B A B ...):
before each run kdelta sets the variant's knobs, and gives every other knob
the variants touch its own value back, so the machine's drift falls on every
variant alike. Every knob is put back at the end, on error, on SIGINT or
SIGTERM, and after a crash or SIGKILL by the next kdelta (or kdelta restore),
from a journal under $XDG_STATE_HOME/kdelta/restore.d.

A knob is a file under /sys or /proc/sys (PATH=VALUE, module parameters and
writable debugfs files included), sysctl.NAME=VALUE, or one of smt=on|off,
governor=NAME, selinux=enforcing|permissive, preempt=none|voluntary|full|lazy.
"NAME:" alone is the machine as it is. A knob that cannot be opened for
writing, or a value the kernel refuses, stops kdelta before anything runs.

Each variant gets a result set labelled variant=NAME and KEY=VALUE for each
knob (each run records the values read back, and the set's fingerprint is
taken with them set); -o PREFIX writes PREFIX-NAME.json, and the store
records every set unless --no-store. The comparison (as kdelta compare,
the first variant the baseline) ends the output.

--order random shuffles the variants within each round (from --seed);
--order blocks runs all of A, then all of B (to measure what interleaving
buys). --matrix KEY=V1,V2,... sweeps a workload parameter or a knob (the
cartesian product of every --matrix), with a table of the first metric
against the swept values. -f FILE reads all of this from a job file (see
examples/); flags given on the command line override it.`,
		RunE: func(c *cobra.Command, args []string) error {
			return runJob(c, args, &s)
		},
	}
	s.register(c.Flags(), true)
	return c
}

// sessionFlags are the flags of kdelta run and kdelta ab, each bound to
// its field when registered; fs is kept to tell a flag given from its
// default, which is how the command line overrides a job file.
type sessionFlags struct {
	ab                   bool // kdelta ab: variants, order, seed, comparison
	repeat, warmup, fifo int
	cpus, output         string
	timeout              time.Duration
	labels               []string
	quick                bool // kdelta run only
	jf                   jobFlags
	uf                   untilFlags
	cmp                  compareFlags // kdelta ab only
	cf                   counterFlags
	pf                   profileFlags
	rf                   recordFlags
	fs                   *pflag.FlagSet
}

func (s *sessionFlags) register(f *pflag.FlagSet, ab bool) {
	s.ab, s.fs = ab, f
	per, label, output := "per workload", "label the result set, k=v (repeatable; host and kernel are set unless given)", "write the result set to this JSON file, after every run"
	if ab {
		per, label, output = "per workload and variant", "label every result set, k=v (repeatable)", "write each variant's result set to PREFIX-NAME.json, after every run"
	}
	f.IntVarP(&s.repeat, "repeat", "r", 5, "measured runs "+per)
	f.IntVar(&s.warmup, "warmup", 1, "warm-up runs "+per+" (recorded, not counted; syscall and pipe warm up on at most 1M calls or 100k loops)")
	f.StringVar(&s.cpus, "cpus", "", "CPU list for every measured child, as taskset -c (e.g. 1 or 0-3,8)")
	f.IntVar(&s.fifo, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&s.timeout, "timeout", 10*time.Minute, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&s.labels, "label", nil, label)
	f.StringVarP(&s.output, "output", "o", "", output)
	if ab {
		f.BoolVar(&s.uf.on, "until-conclusive", false, "add rounds until every variant's first metric has a conclusive verdict against the first variant, up to --max-runs")
		f.IntVar(&s.uf.maxRuns, "max-runs", 20, "with --until-conclusive: measured runs per workload and variant at most")
		s.cmp.register(f)
	} else {
		// kdelta run compares a job's variants as kdelta compare does
		// by default.
		s.cmp.format = "text"
		f.BoolVar(&s.quick, "quick", false, "run the quick suite of every seed workload")
		s.uf.register(f)
	}
	s.jf.register(f, ab)
	s.cf.register(f, "all")
	s.pf.register(f)
	s.rf.register(f)
}

// given tells whether flag name was given on the command line. A name
// the command does not have is kdelta's bug, not the user's: it panics
// rather than read as "not given".
func (s *sessionFlags) given(name string) bool {
	f := s.fs.Lookup(name)
	if f == nil {
		panic("kdelta: no flag --" + name)
	}
	return f.Changed
}

// jobFlags are the flags of kdelta ab that kdelta run shares: -f, --set,
// --matrix (and ab's --variant, --order, --seed).
type jobFlags struct {
	file     string
	sets     []string
	matrix   []string
	variants []string
	order    string
	seed     uint64
}

func (j *jobFlags) register(f *pflag.FlagSet, ab bool) {
	f.StringVarP(&j.file, "file", "f", "", "read the experiment from a TOML job file (see examples/); flags override it")
	f.StringArrayVar(&j.sets, "set", nil, "set a kernel knob for the whole session, KNOB=VALUE (repeatable; restored afterwards)")
	f.StringArrayVar(&j.matrix, "matrix", nil, "sweep a workload parameter or a knob, KEY=V1,V2,... (repeatable: the cartesian product)")
	if ab {
		f.StringArrayVar(&j.variants, "variant", nil, "a variant, NAME:KNOB=VALUE[,KNOB=VALUE...] (repeatable; the first is the baseline)")
		f.StringVar(&j.order, "order", "interleaved", "interleaved, random (shuffled rounds, --seed) or blocks")
		f.Uint64Var(&j.seed, "seed", 1, "seed of --order random")
	}
}

// used tells whether kdelta run was given a job file, knobs or a matrix,
// which runJob handles.
func (j *jobFlags) used() bool {
	return j.file != "" || len(j.sets) > 0 || len(j.matrix) > 0
}

// compareFlags are kdelta ab's comparison flags, as kdelta compare's.
type compareFlags struct {
	format, threshold, test, failOn string
	alpha                           float64
}

func (f *compareFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "format", "text", "comparison format: "+strings.Join(report.CompareFormats, ", "))
	fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level")
	fs.StringVar(&f.threshold, "threshold", "1%", "noise band: changes inside ±threshold do not matter (percent)")
	fs.StringVar(&f.test, "test", stats.TestMannWhitney, "mannwhitney or welch")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 1 when a verdict is regressed (regression)")
}

// options checks the flags and returns the comparison's options.
func (f *compareFlags) options() (stats.Options, error) {
	if err := report.CheckFormat(f.format, report.CompareFormats); err != nil {
		return stats.Options{}, err
	}
	thr, err := parsePercent(f.threshold)
	if err != nil {
		return stats.Options{}, fmt.Errorf("--threshold: %w", err)
	}
	so := stats.Options{Alpha: f.alpha, Threshold: thr, Test: f.test}
	if err := so.Validate(); err != nil {
		return stats.Options{}, fmt.Errorf("--alpha/--test: %w", err)
	}
	if f.failOn != "" && f.failOn != "regression" {
		return stats.Options{}, fmt.Errorf("--fail-on: unknown value %q (regression)", f.failOn)
	}
	return so, nil
}

// runJob runs kdelta ab, and kdelta run with -f, --set or --matrix: the
// flags laid over the job file make abtest's options, abtest runs the
// session, and its sets are shown and compared.
func runJob(c *cobra.Command, args []string, s *sessionFlags) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	o, err := s.abOptions(c.Context(), args)
	if err != nil {
		return err
	}
	o.Warn = func(w string) { fmt.Fprintf(stderr, "kdelta: warning: %s\n", w) }
	if isTerminal(stderr) {
		o.Runner.Progress = stderr
	}
	rec, err := s.rf.open(c.Context())
	if err != nil {
		return err
	}
	defer rec.done(stderr)
	if rec != nil {
		o.Record = rec.record
	}
	res, err := abtest.Run(c.Context(), o)
	switch {
	case res == nil:
		return err
	case len(res.Cells) == 1:
		return s.showOne(stdout, stderr, o, res, rec, err)
	}
	return s.showCells(stdout, stderr, o, res, rec, err)
}

// abOptions turns the flags, over the job file, into abtest's options,
// checked as far as they can be before anything is opened.
func (s *sessionFlags) abOptions(ctx context.Context, args []string) (abtest.Options, error) {
	j, err := s.mergeJob(args)
	if err != nil {
		return abtest.Options{}, err
	}
	cmd := "run"
	if s.ab {
		cmd = "ab"
		if len(j.Variants) < 2 {
			return abtest.Options{}, errors.New("ab: give two variants or more (--variant NAME:KNOB=VALUE,..., or [[variant]] in -f FILE)")
		}
	}
	plan, err := abtest.NewPlan(j)
	if errors.Is(err, abtest.ErrNoWorkloads) {
		return abtest.Options{}, fmt.Errorf("%s: no workloads given (name some after --, or [[workload]] in -f FILE; kdelta list shows them)", cmd)
	}
	if err != nil {
		return abtest.Options{}, err
	}
	o := abtest.Options{Job: j, Plan: plan, Output: s.output}
	if s.ab {
		if o.Stats, err = s.cmp.options(); err != nil {
			return o, err
		}
	}
	if j.UntilConclusive && len(j.Variants) < 2 && s.uf.baseline == "" {
		return o, errors.New("--until-conclusive: needs two variants or more (or, with kdelta run, --baseline REF)")
	}
	if s.uf.baseline != "" && len(plan.Cells) > 1 {
		return o, errors.New("--baseline: with variants or a knob matrix, the first variant is the baseline")
	}
	cf, pf := s.jobCounters(j)
	if err := pf.check(s.fs); err != nil {
		return o, err
	}
	if pf.on {
		o.Profile = &abtest.Profile{Runs: pf.runs, Options: kprofile.Options{Event: pf.event, CallGraph: pf.callGraph, SystemWide: pf.systemWide, Freq: pf.freq}}
	}
	if o.Runner, err = sessionOptions(j.CPUs, j.FIFO, j.Warmup, j.Repeat, j.Timeout, "", nil); err != nil {
		return o, err
	}
	if o.Runner.OnReady, o.Runner.OnReadyWarmup, o.Schedstat, err = cf.hooks(o.Runner.CPUs, false); err != nil {
		return o, err
	}
	o.Fingerprint = func() *sysinfo.Fingerprint { return runner.Fingerprint(Version) }
	if len(plan.Cells) == 1 {
		// One cell runs as kdelta run does: until conclusive against
		// --baseline, if asked.
		s.uf.on, s.uf.maxRuns = j.UntilConclusive, j.MaxRuns
		if o.Until, err = s.uf.rule(ctx, s.rf.loc, plan.Specs, j.Repeat); err != nil {
			return o, err
		}
	}
	return o, nil
}

// jobCounters are the counter and profiling flags with the job file's
// settings where the flag was not given.
func (s *sessionFlags) jobCounters(j *job.Job) (counterFlags, profileFlags) {
	cf, pf := s.cf, s.pf
	if j.Monitors != "" && !s.given("monitor") {
		cf.monitor = j.Monitors
	}
	if j.Events != "" && !s.given("events") {
		cf.events = j.Events
	}
	if j.Counters != "" && !s.given("counters") {
		cf.counters = j.Counters
	}
	if p := j.Profile; p != nil && !s.given("profile") {
		pf = profileFlags{on: true, runs: p.Runs, callGraph: p.CallGraph, event: p.Event, systemWide: p.SystemWide, freq: p.Freq}
	}
	return cf, pf
}

// showOne shows a session of one cell as kdelta run shows its set.
func (s *sessionFlags) showOne(stdout, stderr io.Writer, o abtest.Options, res *abtest.Result, rec *recorder, err error) error {
	if len(res.Sets) == 0 {
		return err
	}
	set := res.Sets[0]
	s.uf.finish(stderr, set)
	report.Show(stdout, set, report.ShowOptions{})
	s.pf.show(stdout, set)
	s.uf.report(stdout)
	if len(o.Job.Matrix) > 0 {
		fmt.Fprintln(stdout)
		report.WriteSweep(stdout, job.SweepTables(res.Cells, res.Sets, o.Job.Matrix, stats.Options{}))
	}
	if o.Output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o FILE)")
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s%s", keptRuns(set), savedIn(o.Output), knobsBack(stderr, res))}
	}
	return err
}

// showCells says where the cells' sets went, then prints the comparison
// of the variants (one point of the knob axes), the sweep table (a
// matrix), and why until-conclusive stopped.
func (s *sessionFlags) showCells(stdout, stderr io.Writer, o abtest.Options, res *abtest.Result, rec *recorder, err error) error {
	if rec != nil {
		for i, set := range res.Sets {
			fmt.Fprintf(stderr, "kdelta: %s recorded as %s in %s\n", report.OrDash(res.Cells[i].Name), set.ID, rec.st.Location())
		}
		rec.id = ""
	}
	var saved []string
	for i, p := range res.Paths {
		if p != "" {
			fmt.Fprintf(stderr, "kdelta: %s saved in %s\n", report.OrDash(res.Cells[i].Name), p)
			saved = append(saved, p)
		}
	}
	if o.Output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o PREFIX)")
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s%s", keptRuns(res.Sets...), savedIn(strings.Join(saved, ", ")), knobsBack(stderr, res))}
	}
	if err != nil {
		return err
	}
	j := o.Job
	if res.Compare != nil {
		if err := report.WriteCompare(stdout, res.Compare, s.cmp.format); err != nil {
			return err
		}
	}
	if len(j.Matrix) > 0 && (s.cmp.format == "text" || s.cmp.format == "markdown") {
		if res.Compare != nil {
			fmt.Fprintln(stdout)
		}
		report.WriteSweep(stdout, job.SweepTables(res.Cells, res.Sets, j.Matrix, o.Stats))
	}
	if j.UntilConclusive {
		untilLines(stdout, j.MaxRuns, res)
	}
	if r := res.Regressions(); s.cmp.failOn == "regression" && len(r) > 0 {
		return &exitError{code: ExitBad, err: fmt.Errorf("regression: %s", r[0])}
	}
	return nil
}

// untilLines say why until-conclusive stopped: every verdict conclusive,
// or --max-runs reached with some still pending.
func untilLines(w io.Writer, maxRuns int, res *abtest.Result) {
	if len(res.Pending) == 0 {
		runs := 0
		for _, b := range res.Sets[0].Benchmarks {
			runs = max(runs, len(b.Measured()))
		}
		fmt.Fprintf(w, "until-conclusive: every verdict conclusive after %d runs per variant\n", runs)
	}
	for _, p := range res.Pending {
		fmt.Fprintf(w, "until-conclusive: reached --max-runs %d: %s\n", maxRuns, p)
	}
}

// knobsBack ends the line of an interrupted session that set knobs:
// whether they are back. Why one is not is printed first, as a warning,
// since the interrupt is the error the command returns.
func knobsBack(stderr io.Writer, res *abtest.Result) string {
	switch {
	case !res.Knobs:
		return ""
	case res.RestoreErr != nil:
		fmt.Fprintf(stderr, "kdelta: warning: %v\n", res.RestoreErr)
		return "; some knobs are not restored (kdelta restore tries again)"
	}
	return "; knobs restored"
}

// mergeJob reads the job file, if any, and lays the flags given on the
// command line over it.
func (s *sessionFlags) mergeJob(args []string) (*job.Job, error) {
	j := &job.Job{Order: "interleaved", Labels: map[string]string{}}
	if s.jf.file != "" {
		var err error
		if j, err = job.Load(s.jf.file); err != nil {
			return nil, err
		}
	}
	if err := s.mergeRuns(j); err != nil {
		return nil, err
	}
	if err := s.mergeKnobs(j); err != nil {
		return nil, err
	}
	// Workloads named on the command line replace the file's.
	if s.quick || len(args) > 0 {
		j.Workloads = nil
		if s.quick {
			q, err := workload.QuickSuite()
			if err != nil {
				return nil, err
			}
			for _, sp := range q {
				j.Workloads = append(j.Workloads, job.Workload{Name: sp.Workload.Name(), Params: sp.Values, Where: "--quick"})
			}
		}
		for _, a := range args {
			sp, err := workload.ParseSpec(a)
			if err != nil {
				return nil, err
			}
			j.Workloads = append(j.Workloads, job.Workload{Name: sp.Workload.Name(), Params: sp.Values, Where: a})
		}
	}
	return j, nil
}

// mergeRuns lays the flags of the runs over j: repeats, placement,
// labels, order and the stopping rule.
func (s *sessionFlags) mergeRuns(j *job.Job) error {
	over := func(flag, key string) bool { return s.given(flag) || !j.Given(key) }
	if over("repeat", "repeat") {
		j.Repeat = s.repeat
	}
	if over("warmup", "warmup") {
		j.Warmup = s.warmup
	}
	if over("fifo", "fifo") {
		j.FIFO = s.fifo
	}
	if j.Repeat < 1 {
		return fmt.Errorf("-r/--repeat: must be at least 1, got %d", j.Repeat)
	}
	if j.Warmup < 0 {
		return fmt.Errorf("--warmup: must not be negative, got %d", j.Warmup)
	}
	if over("cpus", "cpus") {
		j.CPUs = s.cpus
	}
	if over("timeout", "timeout") {
		j.Timeout = s.timeout
	}
	for _, l := range s.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return fmt.Errorf("--label: %q is not key=value", l)
		}
		j.Labels[k] = v
	}
	// kdelta run has no --order or --seed: the file's, or the defaults.
	if s.ab && over("order", "order") {
		j.Order = s.jf.order
	}
	if !slices.Contains(job.Orders, j.Order) {
		return fmt.Errorf("--order: unknown order %q (one of %s)", j.Order, strings.Join(job.Orders, ", "))
	}
	if s.ab && over("seed", "seed") {
		j.Seed = s.jf.seed
	}
	if over("until-conclusive", "until_conclusive") {
		j.UntilConclusive = s.uf.on
	}
	if over("max-runs", "max_runs") {
		j.MaxRuns = s.uf.maxRuns
	}
	if j.UntilConclusive && j.MaxRuns < j.Repeat {
		return fmt.Errorf("--max-runs: %d is fewer than -r %d", j.MaxRuns, j.Repeat)
	}
	return nil
}

// mergeKnobs lays --set, --variant and --matrix over j.
func (s *sessionFlags) mergeKnobs(j *job.Job) error {
	for _, v := range s.jf.sets {
		st, err := knob.Parse(v)
		if err != nil {
			return fmt.Errorf("--set: %w", err)
		}
		j.Set = append(j.Set, st)
	}
	if len(s.jf.variants) > 0 {
		j.Variants = nil
		for _, v := range s.jf.variants {
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
	for _, m := range s.jf.matrix {
		a, err := job.ParseAxis(m)
		if err != nil {
			return fmt.Errorf("--matrix: %w", err)
		}
		i := slices.IndexFunc(j.Matrix, func(o job.Axis) bool { return o.Key == a.Key })
		if i >= 0 {
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
