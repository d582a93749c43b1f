package vm

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/kbuild"
	"github.com/kdelta/kdelta/internal/result"
)

// A CommandLine is what kdelta vm is asked to run, beyond the settings of
// Options: a job file, or the guest's command given after --, and the
// kernels with their command lines.
type CommandLine struct {
	// File is the job file (-f); "" for the guest's command in Args.
	File string
	// Kernels and Appends are the --kernel and --append values, in order.
	Kernels, Appends []string
	// Args are the positional arguments; Dash is the index of -- among
	// them, or -1 when there is none.
	Args []string
	Dash int
	// Given tells whether a setting was given as a flag, by the flag's
	// name (boots, cpus, mem, accel, modules, timeout, boot-deadline): a
	// job file's [vm] table sets only those that were not. Nil: none was.
	Given func(flag string) bool
}

// Apply sets o's Job and Variants from cl: from the job file, whose [vm]
// table also sets the settings cl did not give as flags, or from the
// guest's command after -- with the --kernel and --append values paired.
func (o *Options) Apply(cl CommandLine) error {
	o.Given = cl.Given
	if cl.File != "" {
		if cl.Dash >= 0 || len(cl.Args) > 0 {
			return errors.New("vm: -f takes the workloads from the job file: give no command after --")
		}
		return o.applyFile(cl.File, cl.Kernels, cl.Given)
	}
	if cl.Dash < 0 {
		return errors.New("vm: give the guest's command after --, e.g. kdelta vm --kernel IMAGE -- run syscall -r 5")
	}
	if cl.Dash > 0 {
		return fmt.Errorf("vm: unexpected arguments before --: %s", strings.Join(cl.Args[:cl.Dash], " "))
	}
	j, err := ParseJob(cl.Args[cl.Dash:])
	if err != nil {
		return err
	}
	vs, err := pairVariants(cl.Kernels, cl.Appends)
	if err != nil {
		return err
	}
	o.Job, o.Variants = j, vs
	return nil
}

// pairVariants pairs --kernel and --append values: in order when there
// are as many of each, one kernel with every command line, or one command
// line (or none) with every kernel.
func pairVariants(kernels, appends []string) ([]Variant, error) {
	if len(kernels) == 0 {
		return nil, errors.New("vm: --kernel IMAGE is required")
	}
	if len(appends) == 0 {
		appends = []string{""}
	}
	var vs []Variant
	switch {
	case len(appends) == len(kernels):
		for i, k := range kernels {
			vs = append(vs, Variant{Kernel: k, Append: appends[i]})
		}
	case len(kernels) == 1:
		for _, a := range appends {
			vs = append(vs, Variant{Kernel: kernels[0], Append: a})
		}
	case len(appends) == 1:
		for _, k := range kernels {
			vs = append(vs, Variant{Kernel: k, Append: appends[0]})
		}
	default:
		return nil, fmt.Errorf("vm: %d --kernel and %d --append do not pair: give one --append per --kernel, one --kernel, or at most one --append", len(kernels), len(appends))
	}
	return vs, nil
}

// applyFile reads a job file for kdelta vm: its variants' kernels and
// command lines (one kernel in kernels replaces every variant's, so an
// example file runs with the image at hand; a relative path is the job
// file's), its workloads, repeats and labels, and its [vm] table for the
// settings not given as flags.
func (o *Options) applyFile(path string, kernels []string, given func(string) bool) error {
	j, err := job.Load(path)
	if err != nil {
		return err
	}
	if len(kernels) > 1 {
		return errors.New("--kernel: with -f, give one image for every variant, or none")
	}
	var variants []Variant
	for _, v := range j.Variants {
		if !v.Booted() {
			return fmt.Errorf("%s: variant %s has no kernel or append: kdelta vm boots kernels (use kdelta ab for knobs)", v.Where, v.Name)
		}
		k := v.Kernel
		if len(kernels) == 1 {
			k = kernels[0]
		} else if k != "" && !filepath.IsAbs(k) && !strings.HasPrefix(k, debPrefix) && !kbuild.IsRef(k) {
			k = filepath.Join(filepath.Dir(path), k)
		}
		variants = append(variants, Variant{Kernel: k, Append: v.Append})
	}
	if len(variants) == 0 {
		return fmt.Errorf("%s: no [[variant]] with a kernel to boot", path)
	}
	vj := &Job{Repeat: 5, Warmup: 1, Timeout: j.Timeout, CPUs: j.CPUs, FIFO: j.FIFO, Labels: j.Labels, Monitors: j.Monitors,
		FuncLatency: j.FuncLatency, FuncScope: j.FuncScope}
	if j.Given("repeat") {
		vj.Repeat = j.Repeat
	}
	if j.Given("warmup") {
		vj.Warmup = j.Warmup
	}
	for _, w := range j.Workloads {
		spec := w.Name
		if len(w.Params) > 0 {
			spec += ":" + result.FormatParams(w.Params)
		}
		vj.Specs = append(vj.Specs, spec)
	}
	if len(vj.Specs) == 0 {
		return fmt.Errorf("%s: no [[workload]] to run", path)
	}
	o.Job, o.Variants = vj, variants
	if j.VM != nil {
		o.applyTable(j.VM, given)
	}
	return nil
}

// applyTable takes the settings of a job file's [vm] table that were not
// given as flags.
func (o *Options) applyTable(m *job.VM, given func(string) bool) {
	if given == nil {
		given = func(string) bool { return false }
	}
	if !given("boots") && m.Boots > 0 {
		o.Boots = m.Boots
	}
	if !given("cpus") && m.CPUs > 0 {
		o.CPUs = m.CPUs
	}
	if !given("mem") && m.Mem != "" {
		o.Mem = m.Mem
	}
	if !given("accel") && m.Accel != "" {
		o.Accel = m.Accel
	}
	if !given("modules") && m.Modules != "" {
		o.Modules = m.Modules
	}
	if !given("timeout") && m.Timeout > 0 {
		o.Timeout = m.Timeout
	}
	if !given("boot-deadline") && m.BootDeadline > 0 {
		o.BootDeadline = m.BootDeadline
	}
	if !given("until-conclusive") && m.UntilConclusive {
		o.Until.On = true
	}
	if !given("max-boots") && m.MaxBoots > 0 {
		o.Until.MaxBoots = m.MaxBoots
	}
}
