package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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

// untilFlags are kdelta run's adaptive repeats: --until-conclusive
// --baseline REF --max-runs N.
type untilFlags struct {
	on       bool
	baseline string
	maxRuns  int
	maxFlag  *pflag.Flag // --max-runs, to tell it given from its default
	// base is the baseline, once rule resolved it; warnings are the
	// pairing's, each once; stops say why each workload stopped.
	base     *result.Set
	warnings []string
	stops    []string
}

func (u *untilFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&u.on, "until-conclusive", false, "add runs until each workload's first metric has a conclusive verdict against --baseline (improved, regressed or ~), up to --max-runs")
	f.StringVar(&u.baseline, "baseline", "", "with --until-conclusive: the result set to compare with")
	f.IntVar(&u.maxRuns, "max-runs", 20, "with --until-conclusive: measured runs per workload at most")
	u.maxFlag = f.Lookup("max-runs")
}

// rule checks the flags and returns kdelta run's stopping rule: -r runs,
// or with --until-conclusive one more run at a time of each workload whose
// primary metric is still inconclusive against the baseline, up to
// --max-runs. The verdicts are kdelta compare's with its defaults (α 0.05,
// 1% noise band). Stopping when a verdict first looks conclusive is a
// sequential test: it errs somewhat more often than a single comparison
// at the same α (TestUntilConclusiveErrorRate measures how much). The
// baseline is looked up in the store (storeFlag) as kdelta compare does.
func (u *untilFlags) rule(ctx context.Context, storeFlag string, specs []workload.Spec, repeat int) (runner.Until, error) {
	if !u.on {
		if u.baseline != "" || u.maxFlag != nil && u.maxFlag.Changed {
			return runner.Until{}, errors.New("--baseline and --max-runs: only with --until-conclusive")
		}
		return runner.Until{}, nil
	}
	if u.baseline == "" {
		return runner.Until{}, errors.New("--until-conclusive: needs --baseline REF")
	}
	if u.maxRuns < repeat {
		return runner.Until{}, fmt.Errorf("--max-runs: %d is fewer than -r %d", u.maxRuns, repeat)
	}
	refs := newResolver(ctx, storeFlag)
	base, err := refs.set(u.baseline)
	refs.close()
	if err != nil {
		return runner.Until{}, fmt.Errorf("--baseline: %w", err)
	}
	matched := 0
	for _, sp := range specs {
		b := &result.Benchmark{Workload: sp.Workload.Name(), Params: map[string]string(sp.Values)}
		if _, _, err := bisect.Counterpart(b, len(specs), base); err == nil {
			matched++
		}
	}
	if matched == 0 {
		var keys []string
		for _, o := range base.Benchmarks {
			keys = append(keys, o.Key())
		}
		return runner.Until{}, fmt.Errorf("--baseline %s: holds none of the workloads run (it has %s)", u.baseline, strings.Join(keys, "; "))
	}
	u.base = base
	return runner.Until{Batch: 1, MaxRuns: u.maxRuns, More: u.open}, nil
}

// open is the question --until-conclusive asks of each benchmark of set:
// only an inconclusive comparison can be settled by runs.
func (u *untilFlags) open(set *result.Set) []bool {
	var more []bool
	for _, v := range u.verdicts(set) {
		more = append(more, v.Verdict == stats.Inconclusive && v.A.N > 0)
	}
	return more
}

// A baselineVerdict is one benchmark against the baseline; A.N is 0 when
// they were not compared, and why says why.
type baselineVerdict struct {
	stats.Comparison
	bench, metric, why string
	runs               int
}

// verdicts compares each benchmark of set with its counterpart in the
// baseline on its first metric.
func (u *untilFlags) verdicts(set *result.Set) []baselineVerdict {
	var vs []baselineVerdict
	for _, b := range set.Benchmarks {
		v := baselineVerdict{bench: strings.TrimSpace(b.Workload + " " + result.FormatParams(b.Params)), runs: len(b.Measured())}
		m, err := bisect.MetricOf(b, "")
		switch {
		case err != nil:
			v.why = err.Error()
		case b.Skipped != "":
			v.why = "skipped: " + b.Skipped
		case len(b.Values(m.Name)) == 0:
			v.why = "no measured values"
		default:
			v.metric = m.Name
			if v.Comparison, err = u.compareWith(b, len(set.Benchmarks), m.Name); err != nil {
				v.why = "not compared with the baseline: " + err.Error()
				break
			}
			v.why = report.VerdictText(v.Comparison)
		}
		vs = append(vs, v)
	}
	return vs
}

// compareWith compares b's metric with its counterpart in the baseline.
func (u *untilFlags) compareWith(b *result.Benchmark, measured int, metric string) (stats.Comparison, error) {
	o, note, err := bisect.Counterpart(b, measured, u.base)
	if err != nil {
		return stats.Comparison{}, err
	}
	if note != "" && !slices.Contains(u.warnings, note) {
		u.warnings = append(u.warnings, note)
	}
	return compare.Metric(o, b, metric, compare.Options{})
}

// finish says, after the session, the pairing's warnings on stderr and
// notes why each workload of set stopped, for report.
func (u *untilFlags) finish(stderr io.Writer, set *result.Set) {
	if u.base == nil || set == nil {
		return
	}
	vs := u.verdicts(set)
	for _, w := range u.warnings {
		fmt.Fprintf(stderr, "kdelta: warning: %s\n", w)
	}
	for _, v := range vs {
		var why string
		switch {
		case conclusive(v.Comparison):
			why = fmt.Sprintf("stopped after %d runs: %s", v.runs, v.Verdict)
		case v.A.N > 0 && v.runs >= u.maxRuns:
			why = fmt.Sprintf("reached --max-runs %d: %s", u.maxRuns, v.why)
		default:
			why = fmt.Sprintf("stopped after %d runs: %s", v.runs, v.why)
		}
		if v.A.N > 0 {
			why += fmt.Sprintf(" (%s %s %s %s vs baseline, %d runs)", v.metric, report.Pct(v.Change), report.Interval(v.CI), report.PValue(v.P), v.A.N)
		}
		u.stops = append(u.stops, fmt.Sprintf("until-conclusive: %s: %s", v.bench, why))
	}
}

// conclusive tells whether --until-conclusive stops on c: improved,
// regressed or ~ (a comparison that was made).
func conclusive(c stats.Comparison) bool { return c.A.N > 0 && c.Verdict != stats.Inconclusive }

// report prints why each workload stopped, after the run's summary.
func (u *untilFlags) report(w io.Writer) {
	for _, s := range u.stops {
		fmt.Fprintln(w, s)
	}
}

// bisectInVM measures specs in a kernel booted under qemu, scheduled by
// runner.Schedule over vmBoots: one boot per batch, for as long as until
// gives a benchmark more runs, so a workload the guest skips or brings
// nothing of ends the boots instead of rebooting for ever, and at most
// ceil(MaxRuns / Batch) boots follow the first. The runs of every boot
// are gathered in one set.
func bisectInVM(ctx context.Context, image, appendArgs string, specs []workload.Spec, opt *runner.Options, until runner.Until, log io.Writer) (*result.Set, error) {
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Workload.Name() + ":" + result.FormatParams(sp.Values)
	}
	vopt := vm.Options{
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
	x := &vmBoots{opt: vopt, record: opt.Record}
	err := runner.Schedule(ctx, x, opt.Warmup, opt.Repeat, until)
	return x.set, err
}

// vmBoots is the runner.Executor of bisect-run --vm: each batch one boot
// of the kernel under test, its set merged into the session's by
// vm.MergeBoot. (It belongs beside vm.Run; it is here while vm's owner
// has its package.)
type vmBoots struct {
	opt    vm.Options
	record func(*result.Set) error
	set    *result.Set
	boots  int
	accel  string // the last boot's
}

func (x *vmBoots) Sets() []*result.Set {
	if x.set == nil {
		return nil
	}
	return []*result.Set{x.set}
}

// Run boots once for b: the first boot with b's warm-ups and runs, each
// later one with the most runs b asks of any benchmark (a guest runs all
// of its job) and the guest's own warm-ups, as its kernel is fresh, under
// the accelerator the first boot settled on: a fall-back to TCG is said
// once, not once per boot.
func (x *vmBoots) Run(ctx context.Context, b runner.Batch) error {
	o := x.opt
	j := *o.Job
	o.Job = &j
	if b.First() {
		j.Warmup, j.Repeat = b.Warmup, b.Repeat
	} else {
		j.Repeat = b.Most()
		if a := x.accel; a == "tcg" || strings.HasSuffix(a, ",tcg") {
			o.Accel = "tcg"
		}
	}
	sets, err := vm.Run(ctx, &o)
	if err != nil {
		return err
	}
	if len(sets) != 1 {
		return fmt.Errorf("--vm: %d result sets came home, want 1", len(sets))
	}
	x.accel = sets[0].Labels["accel"]
	x.set = vm.MergeBoot(x.set, sets[0], x.boots)
	x.boots++
	if x.record != nil {
		return x.record(x.set)
	}
	return nil
}
