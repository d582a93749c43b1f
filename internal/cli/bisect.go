package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/bisect"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/vm"
)

// ExitSkip is bisect-run's "cannot tell": git bisect run skips the commit.
const ExitSkip = 125

// exitCodes are bisect-run's exit statuses, by decision.
var exitCodes = map[string]int{bisect.Good: ExitOK, bisect.Bad: ExitBad, bisect.Skip: ExitSkip}

// bisectFlags are bisect-run's flags, the step's bound to
// bisect.StepOptions.
type bisectFlags struct {
	o                       bisect.StepOptions
	threshold, cpus, output string
	vm                      vm.Variant
	labels                  []string
	fifo                    int
	timeout                 time.Duration
	rf                      recordFlags
	noise                   sessionNoiseFlag
	build                   bisectBuild
}

func newBisectRunCmd() *cobra.Command {
	var b bisectFlags
	c := &cobra.Command{
		Use:   "bisect-run --good REF [--bad REF] [--workload SPEC]...",
		Short: "Measure this system against good (and bad) results: exit 0 good, 1 bad, 125 cannot tell, for git bisect run",
		Long:  longHelp("bisect-run"),
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return b.run(c) },
	}
	f, o := c.Flags(), &b.o
	f.StringVar(&o.GoodRef, "good", "", "the result set of a good commit (required)")
	f.StringVar(&o.BadRef, "bad", "", "the result set of a bad commit")
	f.StringVar(&b.vm.Kernel, "vm", "", "boot this kernel image in qemu and measure there (kdelta vm), one boot per batch of runs")
	f.StringVar(&b.vm.Append, "append", "", "with --vm: the guest kernel's command line")
	f.StringArrayVar(&o.Workloads, "workload", nil, "workload to measure, WORKLOAD[:k=v,...] (repeatable; default: those of the good set)")
	f.StringVar(&o.Metric, "metric", "", "the metric that decides (default: each workload's first)")
	f.StringVar(&b.threshold, "threshold", "5%", "noise band: changes inside ±threshold are no regression (percent)")
	f.Float64Var(&o.Compare.Stats.Alpha, "alpha", 0.05, "significance level")
	f.IntVarP(&o.Repeat, "repeat", "r", 5, "measured runs per workload, and per batch of runs added")
	f.IntVar(&o.MaxRuns, "max-runs", 20, "measured runs per workload at most before answering 125")
	f.IntVar(&o.Warmup, "warmup", 1, "warm-up runs per workload (recorded, not counted; syscall and pipe warm up on at most 1M calls or 100k loops)")
	f.StringVar(&b.cpus, "cpus", "", "CPU list for every measured child, as taskset -c (e.g. 1 or 0-3,8)")
	f.IntVar(&b.fifo, "fifo", 0, "run children under SCHED_FIFO with this priority, as chrt -f")
	f.DurationVar(&b.timeout, "timeout", 10*time.Minute, "kill a run (and its process group) after this long; 0: never")
	f.StringArrayVar(&b.labels, "label", nil, "label the measured result set, k=v (repeatable)")
	f.StringVarP(&b.output, "output", "o", "", "write the measured result set, with the decision and its evidence, to this JSON file")
	b.rf.register(f)
	b.noise.register(f)
	b.build.register(f)
	return c
}

// step checks the flags, resolves the good (and bad) set and returns the
// bisection step, its workloads checked, before anything runs.
func (b *bisectFlags) step(c *cobra.Command) (*bisect.Step, error) {
	o := &b.o
	if o.GoodRef == "" {
		return nil, errors.New("bisect-run: --good is required (a result set measured on a good commit)")
	}
	thr, err := stats.ParsePercent(b.threshold)
	if err != nil {
		return nil, fmt.Errorf("--threshold: %w", err)
	}
	o.Compare.Stats.Threshold = thr
	if o.Compare.SessionNoise, err = b.noise.value(); err != nil {
		return nil, err
	}
	if err := stats.CheckAlpha(o.Compare.Stats.Alpha); err != nil {
		return nil, err
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	refs := newResolver(c.Context(), b.rf.loc)
	defer refs.Close()
	if o.Good, err = refs.Set(o.GoodRef); err != nil {
		return nil, fmt.Errorf("--good: %w", err)
	}
	if o.BadRef != "" {
		if o.Bad, err = refs.Set(o.BadRef); err != nil {
			return nil, fmt.Errorf("--bad: %w", err)
		}
	}
	o.Noise = storeNoise(c.Context(), b.rf.loc)
	return bisect.NewStep(*o)
}

// run measures the step's workloads (here, or in a kernel booted with
// --vm), prints the evidence and the decision, records them with the set
// and exits as git bisect run reads it.
func (b *bisectFlags) run(c *cobra.Command) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	if err := checkOutput(c.Context(), b.output, "", b.o.GoodRef, b.o.BadRef); err != nil {
		return err
	}
	step, err := b.step(c)
	if err != nil {
		return err
	}
	opt, err := sessionOptions(c.Context(), b.cpus, b.fifo, b.o.Warmup, b.o.Repeat, b.timeout, b.output, b.labels)
	if err != nil {
		return err
	}
	for _, w := range opt.Warnings {
		fmt.Fprintf(stderr, "kdelta: warning: %s\n", w)
	}
	if b.build.on {
		if b.vm.Kernel != "" {
			return errors.New("bisect-run: --build boots the kernel it builds: give --build or --vm, not both")
		}
		if opt.Labels == nil {
			opt.Labels = map[string]string{}
		}
		if b.vm.Kernel, err = b.build.kernel(c.Context(), opt.Labels, stderr); err != nil {
			return err
		}
	}
	if err := step.Prepare(opt); err != nil {
		return &exitError{code: ExitSkip, err: err} // other run conditions than the references'
	}
	rec, err := b.rf.open(c.Context())
	if err != nil {
		return err
	}
	defer rec.done(stderr)
	if rec != nil {
		opt.Record = rec.record
	}
	var set *result.Set
	if b.vm.Kernel != "" {
		set, err = vm.Measure(c.Context(), b.vm, step.Specs(), opt, step.Until(), stderr)
	} else {
		set, err = runner.RunUntil(c.Context(), step.Specs(), opt, step.Until())
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s%s", report.KeptRuns(set), report.SavedIn(b.output))}
	}
	if err != nil {
		return err
	}
	out := step.Conclude(set)
	code := exitCodes[out.Decision]
	report.WriteBisectOutcome(stdout, stderr, out, code)
	// The decision and its evidence reach the store and the file.
	set.Warnings = append(set.Warnings, report.BisectRecord(out)...)
	if err := rec.record(set); err != nil {
		return err
	}
	if b.output != "" {
		if err := result.Save(b.output, set); err != nil {
			return err
		}
	}
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code, err: fmt.Errorf("bisect-run: %s", out.Decision)}
}
