package vm

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sys"
	"github.com/kdelta/kdelta/internal/workload"
)

// Measure measures specs in kernel v booted under qemu with kdelta vm's
// defaults, as opt asks the runner to measure them here (its repeats,
// warm-ups, timeout, CPUs, FIFO, labels and Record), scheduled by
// runner.Schedule with one boot per batch: for as long as until gives a
// benchmark more runs, so a workload the guest skips or brings nothing of
// ends the boots instead of rebooting for ever, and at most
// ceil(MaxRuns / Batch) boots follow the first. The runs of every boot
// are gathered in one set (MergeBoot); log takes the boots' lines.
func Measure(ctx context.Context, v Variant, specs []workload.Spec, opt *runner.Options, until runner.Until, log io.Writer) (*result.Set, error) {
	x := &boots{opt: measureOptions(v, specs, opt, log), record: opt.Record, boot: Run}
	err := runner.Schedule(ctx, x, opt.Warmup, opt.Repeat, until)
	return x.set, err
}

// measureOptions are the boot options of Measure: one boot of v running
// specs as opt says.
func measureOptions(v Variant, specs []workload.Spec, opt *runner.Options, log io.Writer) Options {
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Workload.Name() + ":" + result.FormatParams(sp.Values)
	}
	o := Options{
		Variants: []Variant{v},
		Boots:    1,
		CPUs:     DefaultCPUs,
		Mem:      DefaultMem,
		Accel:    "auto",
		Timeout:  DefaultTimeout,
		Labels:   opt.Labels,
		Log:      log,
		Job: &Job{Specs: names, Repeat: opt.Repeat, Warmup: opt.Warmup, Timeout: opt.Timeout,
			FIFO: opt.FIFO, Version: opt.Version, Command: opt.Command},
	}
	if opt.CPUs != nil {
		o.Job.CPUs = sys.FormatCPUList(opt.CPUs)
	}
	return o
}

// boots is the runner.Executor of Measure: each batch one boot of the
// kernel under test, its set merged into the session's by MergeBoot.
type boots struct {
	opt    Options
	record func(*result.Set) error
	// boot boots as Run does; tests replace it.
	boot  func(context.Context, *Options) ([]*result.Set, error)
	set   *result.Set
	boots int
	accel string // the last boot's
}

func (x *boots) Sets() []*result.Set {
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
func (x *boots) Run(ctx context.Context, b runner.Batch) error {
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
	sets, err := x.boot(ctx, &o)
	if err != nil {
		return err
	}
	if len(sets) != 1 {
		return fmt.Errorf("--vm: %d result sets came home, want 1", len(sets))
	}
	x.accel = sets[0].Labels["accel"]
	x.set = MergeBoot(x.set, sets[0], x.boots)
	x.boots++
	if x.record != nil {
		return x.record(x.set)
	}
	return nil
}
