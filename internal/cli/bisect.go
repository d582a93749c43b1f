package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/bisect"
	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
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
