package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/bisect"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/vm"
	"github.com/kdelta/kdelta/internal/workload"
)

// ExitSkip is bisect-run's "cannot tell": git bisect run skips the commit.
const ExitSkip = 125

func newBisectRunCmd() *cobra.Command {
	var (
		good, bad, metric, threshold, cpus, output string
		vmImage, vmAppend                          string
		specArgs, labels                           []string
		alpha                                      float64
		repeat, maxRuns, warmup, fifo              int
		timeout                                    time.Duration
		rf                                         recordFlags
	)
	c := &cobra.Command{
		Use:   "bisect-run --good REF [--bad REF] [--workload SPEC]...",
		Short: "Measure this system against good (and bad) results: exit 0 good, 1 bad, 125 cannot tell, for git bisect run",
		Long: `Measure the running system and tell git bisect run whether it is good or bad.

The workloads (--workload, repeatable; by default those of the good result set)
run as kdelta run runs them, -r times each, interleaved. The primary metric of
each (its first, or --metric) is compared with the good set:

  without --bad  bad when it regressed beyond ±threshold (p < alpha and the
                 whole confidence interval beyond the band), good when it is
                 within the band or improved
  with --bad     good when the whole confidence interval of the change from
                 good lies on good's side of the midpoint between good and bad
                 (on the log scale), bad when it lies on bad's side

When that cannot be told yet, more runs are added, -r at a time, up to
--max-runs per workload; still undecided, the answer is 125 and git bisect
skips the commit. Runs that fail (the thing under test does not work) also end
in 125. One line per workload gives the evidence: change, confidence interval,
p-value and runs. The decision and its evidence are recorded with the measured
result set (label bisect=good|bad|skip, and its warnings) in the store (unless
--no-store) and in the file given with -o.

A REF is a result set file (or anything kdelta import reads), the id of a set
in the store (or its start), or a label query such as kernel=6.15 matching one
set.

With --vm IMAGE the measurement happens in a kernel booted under qemu (as
kdelta vm does, with --append as its command line): the freshly built kernel
of each bisect step. Each batch of runs is one boot.

Exit status: 0 good, 1 bad, 125 cannot tell, 2 usage or input error, 130
interrupted (which makes git bisect run stop). git bisect run counts 2 as bad,
so try the command by hand once before starting the bisection.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if good == "" {
				return errors.New("bisect-run: --good is required (a result set measured on a good commit)")
			}
			thr, err := parsePercent(threshold)
			if err != nil {
				return fmt.Errorf("--threshold: %w", err)
			}
			so := stats.Options{Alpha: alpha, Threshold: thr}
			if err := so.Validate(); err != nil {
				return fmt.Errorf("--alpha: %w", err)
			}
			if repeat < 1 {
				return fmt.Errorf("-r/--repeat: must be at least 1, got %d", repeat)
			}
			if maxRuns < repeat {
				return fmt.Errorf("--max-runs: %d is fewer than -r %d", maxRuns, repeat)
			}
			if warmup < 0 {
				return fmt.Errorf("--warmup: must not be negative, got %d", warmup)
			}
			refs := newResolver(c.Context(), rf.loc)
			defer refs.close()
			goodSet, err := refs.set(good)
			if err != nil {
				return fmt.Errorf("--good: %w", err)
			}
			var badSet *result.Set
			if bad != "" {
				if badSet, err = refs.set(bad); err != nil {
					return fmt.Errorf("--bad: %w", err)
				}
			}
			specs, err := bisect.Specs(specArgs, goodSet, good)
			if err != nil {
				return err
			}
			j := bisect.New(bisect.Options{Good: goodSet, Bad: badSet, GoodRef: good, BadRef: bad,
				Metric: metric, Compare: compare.Options{Stats: so}})
			if err := j.Check(specs); err != nil {
				return err
			}
			opt, err := sessionOptions(cpus, fifo, warmup, repeat, timeout, output, labels)
			if err != nil {
				return err
			}
			for _, w := range opt.Warnings {
				fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", w)
			}
			opt.Labels["bisect.good"] = good
			if bad != "" {
				opt.Labels["bisect.bad"] = bad
			}
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			if rec != nil {
				opt.Record = rec.record
			}
			until := runner.Until{
				Batch:   repeat,
				MaxRuns: maxRuns,
				More: func(set *result.Set) []bool {
					var more []bool
					for _, e := range j.Evidence(set) {
						more = append(more, e.Decision == "")
					}
					return more
				},
			}
			var set *result.Set
			if vmImage != "" {
				set, err = bisectInVM(c.Context(), vmImage, vmAppend, specs, opt, until, c.ErrOrStderr())
			} else {
				set, err = runner.RunUntil(c.Context(), specs, opt, until)
			}
			if errors.Is(err, runner.ErrInterrupted) {
				return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s", keptRuns(set), savedIn(output))}
			}
			if err != nil {
				return err
			}
			evs := j.Evidence(set)
			for _, w := range j.Warnings() {
				fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", w)
			}
			decision, code := bisect.Decision(evs), ExitSkip
			switch decision {
			case bisect.Bad:
				code = ExitBad
			case bisect.Good:
				code = ExitOK
			}
			out := c.OutOrStdout()
			set.Labels["bisect"] = decision
			for _, e := range evs {
				line := e.Line(maxRuns)
				fmt.Fprintf(out, "bisect-run: %s\n", line)
				set.Warnings = append(set.Warnings, "bisect-run: "+line)
			}
			set.Warnings = append(set.Warnings, j.Warnings()...)
			fmt.Fprintf(out, "bisect-run: %s (exit %d)\n", decision, code)
			// The decision and its evidence reach the store and the file.
			if err := rec.record(set); err != nil {
				return err
			}
			if output != "" {
				if err := result.Save(output, set); err != nil {
					return err
				}
			}
			if code == ExitOK {
				return nil
			}
			return &exitError{code: code, err: fmt.Errorf("bisect-run: %s", decision)}
		},
	}
	f := c.Flags()
	f.StringVar(&good, "good", "", "the result set of a good commit (required)")
	f.StringVar(&bad, "bad", "", "the result set of a bad commit")
	f.StringVar(&vmImage, "vm", "", "boot this kernel image in qemu and measure there (kdelta vm), one boot per batch of runs")
	f.StringVar(&vmAppend, "append", "", "with --vm: the guest kernel's command line")
	f.StringArrayVar(&specArgs, "workload", nil, "workload to measure, WORKLOAD[:k=v,...] (repeatable; default: those of the good set)")
	f.StringVar(&metric, "metric", "", "the metric that decides (default: each workload's first)")
	f.StringVar(&threshold, "threshold", "5%", "noise band: changes inside ±threshold are no regression (percent)")
	f.Float64Var(&alpha, "alpha", 0.05, "significance level")
	f.IntVarP(&repeat, "repeat", "r", 5, "measured runs per workload, and per batch of runs added")
	f.IntVar(&maxRuns, "max-runs", 20, "measured runs per workload at most before answering 125")
	f.IntVar(&warmup, "warmup", 1, "warm-up runs per workload (recorded, not counted; syscall and pipe warm up on at most 1M calls or 100k loops)")
	f.StringVar(&cpus, "cpus", "", "CPU list for every measured child, as taskset -c (e.g. 1 or 0-3,8)")
	f.IntVar(&fifo, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&labels, "label", nil, "label the measured result set, k=v (repeatable)")
	f.StringVarP(&output, "output", "o", "", "write the measured result set, with the decision and its evidence, to this JSON file")
	rf.register(f)
	return c
}

// What until-conclusive (untilFlags.run, below) uses of bisect-run's
// judge, until it moves out of this file: thin adapters over package
// bisect, which is the judge.
type bisectJudge struct {
	good *result.Set
	// warnings found while judging, each said once.
	warnings []string
}

func (j *bisectJudge) metricOf(b *result.Benchmark) (result.Metric, error) {
	return bisect.MetricOf(b, "")
}

// compareWith compares b's metric m with its counterpart in ref, as
// kdelta compare does with its defaults.
func (j *bisectJudge) compareWith(ref *result.Set, b *result.Benchmark, measured int, m result.Metric) (stats.Comparison, error) {
	o, note, err := bisect.Counterpart(b, measured, ref)
	if err != nil {
		return stats.Comparison{}, err
	}
	if note != "" && !slices.Contains(j.warnings, note) {
		j.warnings = append(j.warnings, note)
	}
	return compare.Metric(o, b, m.Name, compare.Options{})
}

func counterpart(b *result.Benchmark, measured int, ref *result.Set) (*result.Benchmark, string, error) {
	return bisect.Counterpart(b, measured, ref)
}

// A bisectEvidence is until-conclusive's verdict on one benchmark.
type bisectEvidence struct {
	bench    string
	metric   result.Metric
	runs     int
	vsGood   stats.Comparison
	decision string
	why      string
}

func ciString(c stats.Comparison) string { return report.Interval(c.CI) }

func pString(p float64) string { return report.PValue(p) }

// untilFlags are kdelta run's adaptive repeats: --until-conclusive
// --baseline REF --max-runs N.
type untilFlags struct {
	on       bool
	baseline string
	maxRuns  int
	// stops says, after the session, why each workload stopped.
	stops []string
}

func (u *untilFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&u.on, "until-conclusive", false, "add runs until each workload's first metric has a conclusive verdict against --baseline (improved, regressed or ~), up to --max-runs")
	f.StringVar(&u.baseline, "baseline", "", "with --until-conclusive: the result set to compare with")
	f.IntVar(&u.maxRuns, "max-runs", 20, "with --until-conclusive: measured runs per workload at most")
}

// run runs specs as kdelta run does, adaptively when --until-conclusive
// is set: after the -r rounds, another round of the workloads whose
// primary metric is still inconclusive against the baseline, until none
// is or --max-runs is reached. The verdicts are kdelta compare's with its
// defaults (α 0.05, 1% noise band). Stopping when a verdict first looks
// conclusive is a sequential test: it errs somewhat more often than a
// single comparison at the same α (TestUntilConclusiveErrorRate measures
// how much).
func (u *untilFlags) run(c *cobra.Command, specs []workload.Spec, opt *runner.Options) (*result.Set, error) {
	if !u.on {
		if u.baseline != "" || c.Flags().Changed("max-runs") {
			return nil, errors.New("--baseline and --max-runs: only with --until-conclusive")
		}
		return runner.Run(c.Context(), specs, opt)
	}
	if u.baseline == "" {
		return nil, errors.New("--until-conclusive: needs --baseline REF")
	}
	if u.maxRuns < opt.Repeat {
		return nil, fmt.Errorf("--max-runs: %d is fewer than -r %d", u.maxRuns, opt.Repeat)
	}
	// The baseline is looked up in the store run records in (--store).
	loc, _ := c.Flags().GetString("store")
	refs := newResolver(c.Context(), loc)
	base, err := refs.set(u.baseline)
	refs.close()
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	j := &bisectJudge{good: base}
	matched := 0
	for _, sp := range specs {
		b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values)}
		if _, _, err := counterpart(b, len(specs), base); err == nil {
			matched++
		}
	}
	if matched == 0 {
		var keys []string
		for _, o := range base.Benchmarks {
			keys = append(keys, o.Key())
		}
		return nil, fmt.Errorf("--baseline %s: holds none of the workloads run (it has %s)", u.baseline, strings.Join(keys, "; "))
	}
	verdicts := func(set *result.Set) []bisectEvidence {
		var evs []bisectEvidence
		for _, b := range set.Benchmarks {
			e := bisectEvidence{bench: strings.TrimSpace(b.Workload + " " + result.FormatParams(b.Params)), runs: len(b.Measured())}
			m, err := j.metricOf(b)
			switch {
			case err != nil:
				e.why = err.Error()
			case b.Skipped != "":
				e.why = "skipped: " + b.Skipped
			case len(b.Values(m.Name)) == 0:
				e.why = "no measured values"
			default:
				e.metric = m
				if e.vsGood, err = j.compareWith(base, b, len(set.Benchmarks), m); err != nil {
					e.why = "not compared with the baseline: " + err.Error()
					break
				}
				if conclusive(e.vsGood) {
					e.decision = string(e.vsGood.Verdict)
				}
				e.why = report.VerdictText(e.vsGood)
			}
			evs = append(evs, e)
		}
		return evs
	}
	until := runner.Until{
		Batch:   1,
		MaxRuns: u.maxRuns,
		More: func(set *result.Set) []bool {
			var more []bool
			for _, e := range verdicts(set) {
				// Only an inconclusive comparison can be settled by runs.
				more = append(more, e.decision == "" && e.vsGood.A.N > 0)
			}
			return more
		},
	}
	set, err := runner.RunUntil(c.Context(), specs, opt, until)
	for _, w := range j.warnings {
		fmt.Fprintf(c.ErrOrStderr(), "kdelta: warning: %s\n", w)
	}
	for _, e := range verdicts(set) {
		var why string
		switch {
		case e.decision != "":
			why = fmt.Sprintf("stopped after %d runs: %s", e.runs, e.decision)
		case e.vsGood.A.N == 0:
			why = fmt.Sprintf("stopped after %d runs: %s", e.runs, e.why)
		case e.runs >= u.maxRuns:
			why = fmt.Sprintf("reached --max-runs %d: %s", u.maxRuns, e.why)
		default:
			why = fmt.Sprintf("stopped after %d runs: %s", e.runs, e.why)
		}
		if e.vsGood.A.N > 0 {
			c := e.vsGood
			why += fmt.Sprintf(" (%s %s %s %s vs baseline, %d runs)", e.metric.Name, report.Pct(c.Change), ciString(c), pString(c.P), c.A.N)
		}
		u.stops = append(u.stops, fmt.Sprintf("until-conclusive: %s: %s", e.bench, why))
	}
	return set, err
}

// conclusive tells whether --until-conclusive stops on c: improved,
// regressed or ~.
func conclusive(c stats.Comparison) bool { return c.Verdict != stats.Inconclusive }

// report prints why each workload stopped, after the run's summary.
func (u *untilFlags) report(w io.Writer) {
	for _, s := range u.stops {
		fmt.Fprintln(w, s)
	}
}

// bisectInVM measures specs in a kernel booted under qemu: one boot per
// batch of runs, as long as until.More asks for more. As in
// runner.RunUntil, a benchmark stops when the guest skipped it or when its
// attempted runs (warm-ups aside, failed and skipped ones counted) reach
// until.MaxRuns, so a workload the guest cannot run ends the boots instead
// of rebooting for ever: at most ceil(MaxRuns / Repeat) boots when the
// batch is Repeat. The runs of every boot are gathered in one set.
func bisectInVM(ctx context.Context, image, appendArgs string, specs []workload.Spec, opt *runner.Options, until runner.Until, log io.Writer) (*result.Set, error) {
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Workload.Name() + ":" + result.FormatParams(sp.Values)
	}
	vopt := &vm.Options{
		Variants: []vm.Variant{{Kernel: image, Append: appendArgs}},
		Boots:    1,
		CPUs:     vm.DefaultCPUs,
		Mem:      vm.DefaultMem,
		Accel:    "auto",
		Timeout:  vm.DefaultTimeout,
		Labels:   opt.Labels,
		Log:      log,
		Job: &vm.Job{Specs: names, Repeat: opt.Repeat, Warmup: opt.Warmup, Timeout: opt.Timeout,
			FIFO: opt.FIFO, Version: Version, Command: opt.Command},
	}
	if opt.CPUs != nil {
		vopt.Job.CPUs = sys.FormatCPUList(opt.CPUs)
	}
	batch := max(until.Batch, 1)
	maxRuns := max(until.MaxRuns, opt.Repeat)
	var set *result.Set
	for boot := 0; ; boot++ {
		sets, err := vm.Run(ctx, vopt)
		if err != nil {
			return set, err
		}
		if len(sets) != 1 {
			return set, fmt.Errorf("--vm: %d result sets came home, want 1", len(sets))
		}
		got := sets[0]
		if set == nil {
			set = got
		} else {
			mergeBoot(set, got, boot)
		}
		if opt.Record != nil {
			if err := opt.Record(set); err != nil {
				return set, err
			}
		}
		more := false
		if until.More != nil {
			for i, m := range until.More(set) {
				if !m || i >= len(set.Benchmarks) {
					continue
				}
				b := set.Benchmarks[i]
				// A boot that brought no run of b would bring none again.
				added := i < len(got.Benchmarks) && attemptedRuns(got.Benchmarks[i]) > 0
				if b.Skipped == "" && added && attemptedRuns(b) < maxRuns {
					more = true
				}
			}
		}
		if !more {
			return set, nil
		}
		// Later boots add a batch of measured runs, no warm-up beyond the
		// guest's own, under the accelerator the first boot settled on:
		// a fall-back to TCG is said once, not once per boot.
		vopt.Job.Repeat = batch
		if a := got.Labels["accel"]; a == "tcg" || strings.HasSuffix(a, ",tcg") {
			vopt.Accel = "tcg"
		}
	}
}

// attemptedRuns counts b's runs other than warm-ups, whatever their
// status: what --max-runs bounds.
func attemptedRuns(b *result.Benchmark) int {
	n := 0
	for _, r := range b.Runs {
		if !r.Warmup {
			n++
		}
	}
	return n
}

// mergeBoot appends the runs of a later boot (the boot-th, from 0) to
// set, benchmark by benchmark, numbering them after the runs already there
// and recording the boot in each run's Info["boot"].
func mergeBoot(set, later *result.Set, boot int) {
	for i, b := range set.Benchmarks {
		if i >= len(later.Benchmarks) {
			break
		}
		next := attemptedRuns(b)
		for _, r := range later.Benchmarks[i].Runs {
			if !r.Warmup {
				r.Index = next
				next++
			}
			if r.Info == nil {
				r.Info = map[string]string{}
			}
			r.Info["boot"] = strconv.Itoa(boot)
			b.Runs = append(b.Runs, r)
		}
	}
	// Every boot warns alike (TCG, one CPU): each said once.
	for _, w := range later.Warnings {
		if !slices.Contains(set.Warnings, w) {
			set.Warnings = append(set.Warnings, w)
		}
	}
}
