package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/abtest"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/job"
	kprofile "github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

func newABCmd() *cobra.Command {
	var s sessionFlags
	c := &cobra.Command{
		Use:   "ab --variant NAME:KNOB=V[,KNOB=V...] --variant NAME2:... [flags] -- WORKLOAD... | ab --kernel A --kernel B ... -- run WORKLOAD...",
		Short: "A/B test kernel knobs live: variants interleaved run by run, knobs restored, verdicts",
		Long:  longHelp("ab"),
		RunE: func(c *cobra.Command, args []string) error {
			return runJob(c, args, &s)
		},
	}
	c.ValidArgsFunction = completeWorkloads
	s.register(c.Flags(), true)
	return c
}

// kernelsAB routes kdelta ab --kernel A --kernel B ... to kdelta vm, the
// A/B of kernels under test (kdelta ab's variants are knobs of the running
// kernel): args, the command line without the program's name, with vm
// for ab when a --kernel comes before any --.
func kernelsAB(args []string) []string {
	if len(args) == 0 || args[0] != "ab" {
		return args
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--kernel" || strings.HasPrefix(a, "--kernel=") {
			return append([]string{"vm"}, args[1:]...)
		}
	}
	return args
}

// sessionFlags are the flags of kdelta run and kdelta ab, each bound to
// its field when registered, most to abtest's overrides of the job file;
// fs is kept to tell a flag given from its default, which is how the
// command line overrides a job file.
type sessionFlags struct {
	ab     bool // kdelta ab: variants, order, seed, comparison
	ov     abtest.Overrides
	output string
	uf     untilFlags
	cmp    compareFlags // kdelta ab only
	cf     counterFlags
	pf     profileFlags
	rf     recordFlags
	fs     *pflag.FlagSet
}

func (s *sessionFlags) register(f *pflag.FlagSet, ab bool) {
	s.ab, s.fs = ab, f
	o := &s.ov
	per, label, output := "per workload", "label the result set, k=v (repeatable; host and kernel are set unless given)", "write the result set to this JSON file, after every run"
	if ab {
		per, label, output = "per workload and variant", "label every result set, k=v (repeatable)", "write each variant's result set to PREFIX-NAME.json, after every run"
	}
	f.IntVarP(&o.Repeat, "repeat", "r", 5, "measured runs "+per)
	f.IntVar(&o.Warmup, "warmup", 1, "warm-up runs "+per+" (recorded, not counted; syscall and pipe warm up on at most 1M calls or 100k loops)")
	f.StringVar(&o.CPUs, "cpus", "", "CPU list for every measured child, as taskset -c (e.g. 1 or 0-3,8)")
	f.StringVar(&o.Shield, "shield", "", "shield these CPUs for the session: every other task and IRQ moved off them (a cpuset), the runs there, all put back after (root)")
	f.IntVar(&o.FIFO, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&o.Labels, "label", nil, label)
	f.StringVarP(&s.output, "output", "o", "", output)
	if ab {
		f.BoolVar(&s.uf.on, "until-conclusive", false, "add rounds until every variant's first metric has a conclusive verdict against the first variant, up to --max-runs")
		f.IntVar(&s.uf.maxRuns, "max-runs", 20, "with --until-conclusive: measured runs per workload and variant at most")
		s.cmp.register(f, "comparison format")
	} else {
		// kdelta run compares a job's variants as kdelta compare does
		// by default.
		s.cmp.format = "text"
		f.BoolVar(&o.Quick, "quick", false, "run the quick suite of every seed workload")
		s.uf.register(f)
	}
	f.StringVarP(&o.File, "file", "f", "", "read the experiment from a TOML job file (see examples/); flags override it")
	f.StringArrayVar(&o.Set, "set", nil, "set a kernel knob for the whole session, KNOB=VALUE (repeatable; restored afterwards)")
	f.StringArrayVar(&o.Matrix, "matrix", nil, "sweep a workload parameter or a knob, KEY=V1,V2,... (repeatable: the cartesian product)")
	if ab {
		f.StringArrayVar(&o.Variants, "variant", nil, "a variant, NAME:KNOB=VALUE[,KNOB=VALUE...] (repeatable; the first is the baseline)")
		f.StringVar(&o.Order, "order", "interleaved", "interleaved, random (shuffled rounds, --seed) or blocks")
		f.Uint64Var(&o.Seed, "seed", 1, "seed of --order random")
	}
	f.StringVar(&o.FuncLatency, "funclatency", "", "time these kernel functions, FUNC[,FUNC...], in the kernel during every run's timed part: metrics FUNC.calls and FUNC.p50 etc. in us (function_graph tracer; root)")
	f.StringVar(&o.FuncScope, "funclatency-scope", "system", "whose calls --funclatency times: system (any task) or tasks (the workload's)")
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

// jobGiven tells whether kdelta run was given a job file, knobs or a
// matrix, which ask what kdelta ab asks of a job.
func (s *sessionFlags) jobGiven() bool {
	return s.ov.File != "" || len(s.ov.Set) > 0 || len(s.ov.Matrix) > 0
}

// runJob runs kdelta ab and kdelta run: the flags laid over the job file
// make abtest's options, abtest runs the session, and its sets are shown
// and compared.
func runJob(c *cobra.Command, args []string, s *sessionFlags) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	if err := checkOutput(c.Context(), s.output, s.rf.loc, s.ov.File); err != nil {
		return err
	}
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
	ov := s.ov
	ov.Workloads, ov.UntilConclusive, ov.MaxRuns, ov.Given = args, s.uf.on, s.uf.maxRuns, s.given
	j, err := ov.Job()
	if err != nil {
		return abtest.Options{}, err
	}
	plan, err := s.plan(j)
	if err != nil {
		return abtest.Options{}, err
	}
	o := abtest.Options{Job: j, Plan: plan, Output: s.output, Tracefs: getenv(ctx, "KDELTA_TRACEFS")}
	if s.ab {
		if o.Stats, err = s.cmp.options(); err != nil {
			return o, err
		}
	}
	if !s.rf.off {
		// The host's session noise for the verdicts between variants,
		// as kdelta compare finds it (used where they were measured
		// apart).
		o.Noise = storeNoise(ctx, s.rf.loc)
	}
	// Without a job, kdelta run's --until-conclusive asks for --baseline
	// (untilFlags.rule).
	if j.UntilConclusive && len(j.Variants) < 2 && s.uf.baseline == "" && (s.ab || s.jobGiven()) {
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
	if o.Runner, err = sessionOptions(ctx, j.CPUs, j.FIFO, j.Warmup, j.Repeat, j.Timeout, "", nil); err != nil {
		return o, err
	}
	if err := runner.CheckPins(plan.Specs, o.Runner); err != nil {
		return o, err
	}
	if o.Runner.OnReady, o.Runner.OnReadyWarmup, o.Schedstat, err = cf.Hooks(o.Runner.CPUs, false, o.Runner.Env); err != nil {
		return o, err
	}
	o.Runner.Conditions = cf.Conditions(true)
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

// plan checks the job's variants and workloads and makes its plan.
func (s *sessionFlags) plan(j *job.Job) (abtest.Plan, error) {
	cmd, how := "run", "name some, or use --quick"
	if s.ab || s.jobGiven() {
		how = "name some after --, or [[workload]] in -f FILE"
	}
	if s.ab {
		cmd = "ab"
		if len(j.Variants) < 2 {
			return abtest.Plan{}, errors.New("ab: give two variants or more (--variant NAME:KNOB=VALUE,..., or [[variant]] in -f FILE)")
		}
	}
	plan, err := abtest.NewPlan(j)
	if errors.Is(err, abtest.ErrNoWorkloads) {
		return plan, fmt.Errorf("%s: no workloads given (%s; kdelta list shows them)", cmd, how)
	}
	return plan, err
}

// jobCounters are the counter and profiling flags with the job file's
// settings where the flag was not given.
func (s *sessionFlags) jobCounters(j *job.Job) (counterFlags, profileFlags) {
	cf, pf := s.cf, s.pf
	if j.Monitors != "" && !s.given("monitor") {
		cf.Monitor = j.Monitors
	}
	if j.Events != "" && !s.given("events") {
		cf.Events = j.Events
	}
	if j.Counters != "" && !s.given("counters") {
		cf.Counters = j.Counters
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
	if s.pf.on {
		report.WriteRunProfiles(stdout, set)
	}
	s.uf.report(stdout)
	if sw := report.SessionOf(res, o).Sweeps; sw != nil {
		fmt.Fprintln(stdout)
		report.WriteSweep(stdout, sw)
	}
	if o.Output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o FILE)")
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return interrupted(res.Sets, o.Output, stderr, res)
	}
	if err != nil {
		return err
	}
	return nothingMeasured(res.Sets)
}

// showCells says where the cells' sets went, then prints the comparison
// of the variants (one point of the knob axes), the sweep table (a
// matrix), and why until-conclusive stopped.
func (s *sessionFlags) showCells(stdout, stderr io.Writer, o abtest.Options, res *abtest.Result, rec *recorder, err error) error {
	r, loc := report.SessionOf(res, o), ""
	if rec != nil {
		// Each set's line is said here, not once by rec.done.
		loc, rec.ids = rec.st.Location(), nil
	}
	saved := r.WriteSaved(stderr, loc)
	if o.Output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o PREFIX)")
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return interrupted(res.Sets, strings.Join(saved, ", "), stderr, res)
	}
	if err != nil {
		return err
	}
	if err := report.WriteSession(stdout, r, s.cmp.format); err != nil {
		return err
	}
	if err := nothingMeasured(res.Sets); err != nil {
		return err
	}
	if err := compare.FailOn(s.cmp.failOn, report.Regressions(res)); err != nil {
		return &exitError{code: ExitBad, err: err}
	}
	return nil
}

// interrupted is the error of a session cut short. After a session that
// set knobs, why one is not back is said first, as a warning, since the
// interrupt is the error the command returns.
func interrupted(sets []*result.Set, saved string, stderr io.Writer, res *abtest.Result) error {
	knobs, restored := false, false
	if res != nil {
		knobs, restored = res.Knobs, res.RestoreErr == nil
		if knobs && !restored {
			fmt.Fprintf(stderr, "kdelta: warning: %v\n", res.RestoreErr)
		}
	}
	return &exitError{code: ExitInterrupted, err: errors.New(report.Interrupted(sets, saved, knobs, restored))}
}
