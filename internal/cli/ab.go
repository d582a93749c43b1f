package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/counter"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/knob"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sysinfo"
	"github.com/kdelta/kdelta/internal/workload"
)

func newABCmd() *cobra.Command {
	var (
		jf                     jobFlags
		repeat, warmup, fifo   int
		cpus, output           string
		timeout                time.Duration
		labels                 []string
		cf                     counterFlags
		pf                     profileFlags
		rf                     recordFlags
		until                  bool
		maxRuns                int
		format, threshold, cmp string
		failOn                 string
		alpha                  float64
	)
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
			return runJob(c, args, &jf, "ab")
		},
	}
	f := c.Flags()
	jf.register(f, true)
	f.IntVarP(&repeat, "repeat", "r", 5, "measured runs per workload and variant")
	f.IntVar(&warmup, "warmup", 1, "warm-up runs per workload and variant (recorded, not counted; syscall and pipe warm up on at most 1M calls or 100k loops)")
	f.StringVar(&cpus, "cpus", "", "CPU list for every measured child, as taskset -c (e.g. 1 or 0-3,8)")
	f.IntVar(&fifo, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&labels, "label", nil, "label every result set, k=v (repeatable)")
	f.StringVarP(&output, "output", "o", "", "write each variant's result set to PREFIX-NAME.json, after every run")
	f.BoolVar(&until, "until-conclusive", false, "add rounds until every variant's first metric has a conclusive verdict against the first variant, up to --max-runs")
	f.IntVar(&maxRuns, "max-runs", 20, "with --until-conclusive: measured runs per workload and variant at most")
	f.StringVar(&format, "format", "text", "comparison format: "+strings.Join(report.CompareFormats, ", "))
	f.Float64Var(&alpha, "alpha", 0.05, "significance level")
	f.StringVar(&threshold, "threshold", "1%", "noise band: changes inside ±threshold do not matter (percent)")
	f.StringVar(&cmp, "test", stats.TestMannWhitney, "mannwhitney or welch")
	f.StringVar(&failOn, "fail-on", "", "exit 1 when a verdict is regressed (regression)")
	cf.register(f, "all")
	pf.register(f)
	rf.register(f)
	return c
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

// runJob runs kdelta ab, and kdelta run with -f, --set or --matrix: the
// job file merged with the flags, its cells run interleaved with their
// knobs set, and the sets shown and compared.
func runJob(c *cobra.Command, args []string, jf *jobFlags, cmd string) error {
	fl := c.Flags()
	stderr, stdout := c.ErrOrStderr(), c.OutOrStdout()
	j, err := mergeJob(fl, args, jf, cmd)
	if err != nil {
		return err
	}
	for _, v := range j.Variants {
		if v.Booted() {
			return fmt.Errorf("%s: its variants boot kernels (kernel, append): run it with kdelta vm -f %s", j.File, j.File)
		}
	}
	if cmd == "ab" && len(j.Variants) < 2 {
		return errors.New("ab: give two variants or more (--variant NAME:KNOB=VALUE,..., or [[variant]] in -f FILE)")
	}
	specs, err := j.Specs()
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return fmt.Errorf("%s: no workloads given (name some after --, or [[workload]] in -f FILE; kdelta list shows them)", cmd)
	}
	if specs, err = job.ExpandParams(specs, j.Matrix); err != nil {
		return err
	}
	so, format, failOn, err := compareFlags(fl, cmd)
	if err != nil {
		return err
	}
	if j.UntilConclusive && len(j.Variants) < 2 {
		if _, ok := flagString(fl, "baseline"); !ok {
			return errors.New("--until-conclusive: needs two variants or more (or, with kdelta run, --baseline REF)")
		}
	}
	cells := job.Cells(j.Set, j.Variants, j.Matrix)
	if _, ok := flagString(fl, "baseline"); ok && len(cells) > 1 {
		return errors.New("--baseline: with variants or a knob matrix, the first variant is the baseline")
	}
	cf := counterFlagsOf(fl)
	if j.Monitors != "" && !fl.Changed("monitor") {
		cf.monitor = j.Monitors
	}
	if j.Events != "" && !fl.Changed("events") {
		cf.events = j.Events
	}
	if j.Counters != "" && !fl.Changed("counters") {
		cf.counters = j.Counters
	}
	pf := profileFlagsOf(fl)
	if p := j.Profile; p != nil && !fl.Changed("profile") {
		pf = profileFlags{on: true, runs: p.Runs, callGraph: p.CallGraph, event: p.Event, systemWide: p.SystemWide, freq: p.Freq}
	}
	if err := pf.check(fl); err != nil {
		return err
	}
	output, _ := fl.GetString("output")
	opt, err := sessionOptions(j.CPUs, j.FIFO, j.Warmup, j.Repeat, j.Timeout, "", nil)
	if err != nil {
		return err
	}
	for k, v := range j.Labels {
		opt.Labels[k] = v
	}
	// Host and kernel, as kdelta run gives its sets: the cells' sets are
	// started without a fingerprint, which each takes with its knobs set.
	runner.DefaultLabels(opt.Labels, opt.Env)
	hook, warmHook, schedstat, err := cf.hooks(opt.CPUs, false)
	if err != nil {
		return err
	}
	opt.OnReady, opt.OnReadyWarmup = hook, warmHook

	// Knobs: every file checked, journalled, and every variant's values
	// tried once, before anything runs.
	var sess *knob.Session
	if groups := job.KnobGroups(cells); anySetting(groups) {
		if sess, err = knob.Open(groups, knob.Options{Command: opt.Command}); err != nil {
			return err
		}
		defer func() {
			if err := sess.Restore(); err != nil {
				fmt.Fprintf(stderr, "kdelta: warning: %v\n", err)
			}
		}()
		if err := sess.Check(groups); err != nil {
			return err
		}
	}
	if schedstat {
		restore, err := counter.EnableSchedstats("/")
		if err != nil {
			fmt.Fprintf(stderr, "kdelta: warning: %v: schedstat counters may stay zero\n", err)
		}
		defer restore()
	}
	rf := recordFlags{loc: mustString(fl, "store"), off: mustBool(fl, "no-store")}
	rec, err := rf.open(c.Context())
	if err != nil {
		return err
	}
	defer rec.done(stderr)
	if isTerminal(stderr) {
		opt.Progress = stderr
	}
	if len(cells) == 1 {
		return runOneCell(c, j, cells[0], specs, opt, sess, rec, pf, output)
	}

	paths := make([]string, len(cells))
	for i, cl := range cells {
		if output != "" {
			paths[i] = cellPath(output, cl.Name)
		}
	}
	warned := false
	ro := job.RunOptions{
		Runner:   opt,
		Order:    j.Order,
		Seed:     j.Seed,
		Knobs:    sess,
		Progress: opt.Progress,
		Env: func() (*sysinfo.Fingerprint, []string) {
			env := runner.Fingerprint(Version)
			ws := sysinfo.Warnings(env, opt.CPUs)
			if !warned {
				for _, w := range ws {
					fmt.Fprintf(stderr, "kdelta: warning: %s\n", w)
				}
				warned = true
			}
			return env, ws
		},
		Save: func(i int, s *result.Set) error {
			if err := rec.record(s); err != nil {
				return err
			}
			if paths[i] == "" {
				return nil
			}
			return result.Save(paths[i], s)
		},
		MaxRuns: j.MaxRuns,
	}
	if j.UntilConclusive {
		ro.More = func(sets []*result.Set) bool { return len(job.Pending(cells, sets, so)) > 0 }
	}
	sets, runErr := job.Run(c.Context(), cells, specs, ro)
	if runErr == nil && pf.on {
		// Profiled runs, each under its cell's knobs, after every
		// measured run and out of the statistics.
		for i, s := range sets {
			if sess != nil {
				if runErr = sess.Apply(cells[i].Settings); runErr != nil {
					break
				}
			}
			if runErr = pf.record(c.Context(), s, specs, opt, paths[i]); runErr != nil {
				break
			}
			if runErr = rec.record(s); runErr != nil {
				break
			}
		}
	}
	var restoreErr error
	if sess != nil {
		if restoreErr = sess.Restore(); restoreErr != nil && runErr == nil {
			runErr = restoreErr
		}
	}
	if rec != nil {
		for i, s := range sets {
			fmt.Fprintf(stderr, "kdelta: %s recorded as %s in %s\n", report.OrDash(cells[i].Name), s.ID, rec.st.Location())
		}
		rec.id = ""
	}
	for i, p := range paths {
		if p != "" {
			fmt.Fprintf(stderr, "kdelta: %s saved in %s\n", report.OrDash(cells[i].Name), p)
		}
	}
	if output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o PREFIX)")
	}
	if errors.Is(runErr, runner.ErrInterrupted) {
		var saved []string
		for _, p := range paths {
			if p != "" {
				saved = append(saved, p)
			}
		}
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s%s", keptRuns(sets...), savedIn(strings.Join(saved, ", ")), knobsBack(stderr, sess, restoreErr))}
	}
	if runErr != nil {
		return runErr
	}
	return showCells(stdout, stderr, j, cells, sets, so, format, failOn)
}

// showCells prints the comparison of the variants (one point of the knob
// axes), the sweep table (a matrix), and why until-conclusive stopped.
func showCells(stdout, stderr io.Writer, j *job.Job, cells []job.Cell, sets []*result.Set, so stats.Options, format, failOn string) error {
	knobAxes := 0
	for _, a := range j.Matrix {
		if a.Knob != nil {
			knobAxes++
		}
	}
	var cmpRes *compare.Result
	if len(j.Variants) >= 2 && knobAxes == 0 {
		ins := make([]compare.Input, len(sets))
		for i, s := range sets {
			ins[i] = compare.Input{Name: cells[i].Name, Set: s}
		}
		r, err := compare.Compare(ins, compare.Options{Stats: so})
		if err != nil {
			return err
		}
		cmpRes = r
		if err := report.WriteCompare(stdout, r, format); err != nil {
			return err
		}
	}
	if len(j.Matrix) > 0 && (format == "text" || format == "markdown") {
		if cmpRes != nil {
			fmt.Fprintln(stdout)
		}
		report.WriteSweep(stdout, job.SweepTables(cells, sets, j.Matrix, so))
	}
	if j.UntilConclusive {
		runs := 0
		for _, b := range sets[0].Benchmarks {
			runs = max(runs, len(b.Measured()))
		}
		pending := job.Pending(cells, sets, so)
		if len(pending) == 0 {
			fmt.Fprintf(stdout, "until-conclusive: every verdict conclusive after %d runs per variant\n", runs)
		}
		for _, p := range pending {
			fmt.Fprintf(stdout, "until-conclusive: reached --max-runs %d: %s\n", j.MaxRuns, p)
		}
	}
	if failOn == "regression" {
		if cmpRes != nil {
			for _, row := range cmpRes.Rows {
				for k, v := range row.Vs {
					if v.Verdict == stats.Regressed {
						return &exitError{code: ExitBad, err: fmt.Errorf("regression: %s %s %s", cmpRes.Names[k+1], row.Workload, row.Metric.Name)}
					}
				}
			}
		}
		for _, v := range job.Verdicts(cells, sets, so) {
			if v.Comparison.Verdict == stats.Regressed {
				return &exitError{code: ExitBad, err: fmt.Errorf("regression: %s", v)}
			}
		}
	}
	return nil
}

// runOneCell runs a job with a single cell, whose knobs (if any) are set
// once for the whole session, the way kdelta run runs.
func runOneCell(c *cobra.Command, j *job.Job, cell job.Cell, specs []workload.Spec, opt *runner.Options, sess *knob.Session, rec *recorder, pf profileFlags, output string) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	var values map[string]string
	if sess != nil {
		if err := sess.Apply(cell.Settings); err != nil {
			return err
		}
		values = sess.Values()
		// The fingerprint, taken before, is taken again with the knobs set.
		opt.Env = runner.Fingerprint(Version)
		opt.Warnings = sysinfo.Warnings(opt.Env, opt.CPUs)
	}
	for k, v := range cell.Labels {
		opt.Labels[k] = v
	}
	for _, w := range opt.Warnings {
		fmt.Fprintf(stderr, "kdelta: warning: %s\n", w)
	}
	opt.Output = output
	if rec != nil {
		opt.Record = rec.record
	}
	uf := untilFlags{on: j.UntilConclusive, maxRuns: j.MaxRuns}
	uf.baseline, _ = flagString(c.Flags(), "baseline")
	set, err := uf.run(c, specs, opt)
	if set == nil {
		return err
	}
	stampKnobs(set, values)
	if err == nil {
		err = pf.record(c.Context(), set, specs, opt, output)
	}
	var restoreErr error
	if sess != nil {
		if restoreErr = sess.Restore(); restoreErr != nil && err == nil {
			err = restoreErr
		}
	}
	if output != "" {
		if serr := result.Save(output, set); serr != nil && err == nil {
			err = serr
		}
	}
	if rerr := rec.record(set); rerr != nil && err == nil {
		err = rerr
	}
	report.Show(stdout, set, report.ShowOptions{})
	pf.show(stdout, set)
	uf.report(stdout)
	if len(j.Matrix) > 0 {
		fmt.Fprintln(stdout)
		report.WriteSweep(stdout, job.SweepTables([]job.Cell{cell}, []*result.Set{set}, j.Matrix, stats.Options{}))
	}
	if output == "" && rec == nil {
		fmt.Fprintln(stderr, "kdelta: results not saved (use -o FILE)")
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s%s", keptRuns(set), savedIn(output), knobsBack(stderr, sess, restoreErr))}
	}
	return err
}

// knobsBack ends the line of an interrupted session that set knobs:
// whether they are back. Why one is not is printed first, as a warning,
// since the interrupt is the error the command returns.
func knobsBack(stderr io.Writer, sess *knob.Session, restoreErr error) string {
	switch {
	case sess == nil:
		return ""
	case restoreErr != nil:
		fmt.Fprintf(stderr, "kdelta: warning: %v\n", restoreErr)
		return "; some knobs are not restored (kdelta restore tries again)"
	}
	return "; knobs restored"
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

// mergeJob reads the job file, if any, and lays the flags given on the
// command line over it.
func mergeJob(fl *pflag.FlagSet, args []string, jf *jobFlags, cmd string) (*job.Job, error) {
	j := &job.Job{Order: "interleaved", Labels: map[string]string{}}
	if jf.file != "" {
		var err error
		if j, err = job.Load(jf.file); err != nil {
			return nil, err
		}
	}
	intFlag := func(name, key string, dst *int) {
		if v, err := fl.GetInt(name); err == nil && (fl.Changed(name) || !j.Given(key)) {
			*dst = v
		}
	}
	intFlag("repeat", "repeat", &j.Repeat)
	intFlag("warmup", "warmup", &j.Warmup)
	intFlag("fifo", "fifo", &j.FIFO)
	if j.Repeat < 1 {
		return nil, fmt.Errorf("-r/--repeat: must be at least 1, got %d", j.Repeat)
	}
	if j.Warmup < 0 {
		return nil, fmt.Errorf("--warmup: must not be negative, got %d", j.Warmup)
	}
	if v, err := fl.GetString("cpus"); err == nil && (fl.Changed("cpus") || !j.Given("cpus")) {
		j.CPUs = v
	}
	if v, err := fl.GetDuration("timeout"); err == nil && (fl.Changed("timeout") || !j.Given("timeout")) {
		j.Timeout = v
	}
	labels, _ := fl.GetStringArray("label")
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label: %q is not key=value", l)
		}
		j.Labels[k] = v
	}
	if fl.Changed("order") || !j.Given("order") {
		if v, err := fl.GetString("order"); err == nil {
			j.Order = v
		}
	}
	if !oneOfStr(j.Order, job.Orders) {
		return nil, fmt.Errorf("--order: unknown order %q (one of %s)", j.Order, strings.Join(job.Orders, ", "))
	}
	if fl.Changed("seed") || !j.Given("seed") {
		if v, err := fl.GetUint64("seed"); err == nil {
			j.Seed = v
		}
	}
	if fl.Changed("until-conclusive") || !j.Given("until_conclusive") {
		j.UntilConclusive, _ = fl.GetBool("until-conclusive")
	}
	if fl.Changed("max-runs") || !j.Given("max_runs") {
		if v, err := fl.GetInt("max-runs"); err == nil {
			j.MaxRuns = v
		}
	}
	if j.UntilConclusive && j.MaxRuns < j.Repeat {
		return nil, fmt.Errorf("--max-runs: %d is fewer than -r %d", j.MaxRuns, j.Repeat)
	}
	for _, s := range jf.sets {
		st, err := knob.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("--set: %w", err)
		}
		j.Set = append(j.Set, st)
	}
	if len(jf.variants) > 0 {
		j.Variants = nil
		seen := map[string]bool{}
		for _, s := range jf.variants {
			v, err := job.ParseVariant(s)
			if err != nil {
				return nil, fmt.Errorf("--variant: %w", err)
			}
			if seen[v.Name] {
				return nil, fmt.Errorf("--variant: %s given twice", v.Name)
			}
			seen[v.Name] = true
			j.Variants = append(j.Variants, v)
		}
	}
	for _, s := range jf.matrix {
		a, err := job.ParseAxis(s)
		if err != nil {
			return nil, fmt.Errorf("--matrix: %w", err)
		}
		replaced := false
		for i := range j.Matrix {
			if j.Matrix[i].Key == a.Key {
				j.Matrix[i], replaced = a, true
			}
		}
		if !replaced {
			j.Matrix = append(j.Matrix, a)
		}
	}
	for _, a := range j.Matrix {
		for _, v := range j.Variants {
			for _, st := range v.Set {
				if a.Knob != nil && st.Knob.Path == a.Knob.Path {
					return nil, fmt.Errorf("%s: variant %s sets the same knob", a.Where, v.Name)
				}
			}
		}
	}
	// Workloads named on the command line replace the file's.
	if quick, _ := fl.GetBool("quick"); quick || len(args) > 0 {
		j.Workloads = nil
		if quick {
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

// compareFlags reads ab's comparison flags; kdelta run has none and
// compares with the defaults.
func compareFlags(fl *pflag.FlagSet, cmd string) (so stats.Options, format, failOn string, err error) {
	format = "text"
	if cmd != "ab" {
		return so, format, "", nil
	}
	format, _ = fl.GetString("format")
	if !oneOfStr(format, report.CompareFormats) {
		return so, "", "", fmt.Errorf("--format: unknown format %q (one of %s)", format, strings.Join(report.CompareFormats, ", "))
	}
	thr, err := parsePercent(mustString(fl, "threshold"))
	if err != nil {
		return so, "", "", fmt.Errorf("--threshold: %w", err)
	}
	alpha, _ := fl.GetFloat64("alpha")
	so = stats.Options{Alpha: alpha, Threshold: thr, Test: mustString(fl, "test")}
	if err := so.Validate(); err != nil {
		return so, "", "", fmt.Errorf("--alpha/--test: %w", err)
	}
	failOn = mustString(fl, "fail-on")
	if failOn != "" && failOn != "regression" {
		return so, "", "", fmt.Errorf("--fail-on: unknown value %q (regression)", failOn)
	}
	return so, format, failOn, nil
}

// counterFlagsOf reads the counter flags back from a command's flag set.
func counterFlagsOf(fl *pflag.FlagSet) counterFlags {
	cf := counterFlags{
		events:   mustString(fl, "events"),
		probes:   mustString(fl, "probe-events"),
		counters: mustString(fl, "counters"),
		monitor:  mustString(fl, "monitor"),
	}
	cf.systemWide = mustBool(fl, "all-cpus")
	return cf
}

// profileFlagsOf reads the profiling flags back from a command's flag set.
func profileFlagsOf(fl *pflag.FlagSet) profileFlags {
	p := profileFlags{on: mustBool(fl, "profile"), callGraph: mustBool(fl, "profile-call-graph"),
		systemWide: mustBool(fl, "profile-system-wide"), event: mustString(fl, "profile-event")}
	p.runs, _ = fl.GetInt("profile-runs")
	p.freq, _ = fl.GetInt("profile-freq")
	return p
}

func mustString(fl *pflag.FlagSet, name string) string {
	v, _ := fl.GetString(name)
	return v
}

func mustBool(fl *pflag.FlagSet, name string) bool {
	v, _ := fl.GetBool(name)
	return v
}

// flagString returns a string flag's value and whether it was given.
func flagString(fl *pflag.FlagSet, name string) (string, bool) {
	v, err := fl.GetString(name)
	return v, err == nil && fl.Changed(name)
}

func oneOfStr(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func anySetting(groups [][]knob.Setting) bool {
	for _, g := range groups {
		if len(g) > 0 {
			return true
		}
	}
	return false
}

// cellPath names a cell's result file: PREFIX-NAME.json, with characters
// unsafe in file names replaced.
func cellPath(prefix, name string) string {
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
