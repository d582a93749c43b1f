package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/vm"
)

// vmFlags are kdelta vm's flags, the boot settings bound to vm.Options.
type vmFlags struct {
	opt             vm.Options
	cl              vm.CommandLine
	labels          []string
	output, console string
	rf              recordFlags
	sr              *vm.Series // kdelta series: ends with the history, not a comparison; nil for vm
	kb              kbuildFlags
}

func newVMCmd() *cobra.Command {
	return vmCommand("vm --kernel IMAGE [--append ARGS] [--kernel IMAGE2 --append ARGS2 ...] [flags] -- run WORKLOAD... [-r N]",
		"Boot kernels under test in qemu and run workloads inside", nil)
}

// newSeriesCmd is kdelta series: kdelta vm over builds, ending with their history.
func newSeriesCmd() *cobra.Command {
	return vmCommand("series --kernel deb:A --kernel deb:B ... [--boots N] [flags] -- run WORKLOAD...",
		"Boot a series of kernel builds round-robin and find the step between them", &vm.Series{})
}

func vmCommand(use, short string, sr *vm.Series) *cobra.Command {
	c, _ := vmCommandOf(use, short, sr)
	return c
}

// vmCommandOf is vmCommand with the flags it binds.
func vmCommandOf(use, short string, sr *vm.Series) (*cobra.Command, *vmFlags) {
	v := &vmFlags{sr: sr}
	c := &cobra.Command{
		Use: use, Short: short, Long: longHelp(strings.Fields(use)[0]),
		RunE: func(c *cobra.Command, args []string) error {
			v.cl.Args, v.cl.Dash, v.cl.Given = args, c.ArgsLenAtDash(), c.Flags().Changed
			return v.run(c)
		},
	}
	f, o := c.Flags(), &v.opt
	f.StringVarP(&v.cl.File, "file", "f", "", "job file whose [[variant]] kernel/append pairs, workloads and [vm] table to run (examples/001-messaging-preempt-vm.toml); --kernel replaces every variant's kernel")
	f.StringArrayVar(&v.cl.Kernels, "kernel", nil, "kernel image to boot (bzImage, arm64 Image, ppc64le vmlinux, s390x image), deb:PACKAGE[=VERSION] fetched with apt-get, rpm:FILE.rpm, a kernel RPM, or a kernel kdelta builds: git:REV or git:DIR@REV (a commit), git:BASE..HEAD (every commit of the range), tree:DIR (a working tree as it is) (repeatable: one variant each)")
	f.StringArrayVar(&v.cl.Appends, "append", nil, "kernel command line of the variant (repeatable, paired with --kernel in order)")
	f.IntVar(&o.Boots, "boots", 1, "boots per variant, alternating between variants (A B A B ...)")
	f.IntVar(&o.CPUs, "cpus", vm.DefaultCPUs, "guest CPUs")
	f.StringVar(&o.Mem, "mem", vm.DefaultMem, "guest memory, as qemu -m (512M, 2G)")
	f.StringVar(&o.Arch, "arch", "", "the kernels' architecture, "+strings.Join(vm.ArchNames, ", ")+" (default: each image's own, from its header); other than this machine's, emulated (TCG)")
	f.StringVar(&o.Accel, "accel", "auto", "kvm, tcg, or auto (KVM if it starts the kernel, else TCG)")
	f.StringVar(&o.Modules, "modules", "", "the kernel's modules (lib/modules/RELEASE, or a tree holding it) for workloads that need some")
	f.DurationVar(&o.Timeout, "timeout", vm.DefaultTimeout, "kill a guest (qemu) that has not powered off after this long")
	f.DurationVar(&o.BootDeadline, "boot-deadline", vm.DefaultBootDeadline, "how long KVM has to start the kernel before TCG is used instead")
	f.StringVar(&o.KexecFrom, "kexec-from", "", "boot this kernel (a file, deb: or rpm:) in qemu first and let its /init start each variant's kernel with kexec_file_load; a boot counts only if the variant's kernel came up (the kexec path of a lab agent)")
	f.StringVar(&o.Binary, "guest-binary", "", "static kdelta-guest (or kdelta) binary to use as the guest's /init (default: kdelta-guest-linux-ARCH beside this one, or built from the source tree)")
	f.StringVar(&v.console, "console", "", "write the guest consoles (kernel messages, /init's lines) to this file")
	f.StringArrayVar(&v.labels, "label", nil, "label every result set, k=v (repeatable; kernel, cmdline, variant and accel are set)")
	f.StringVarP(&v.output, "output", "o", "", "write one result set per variant into this directory")
	v.rf.register(f)
	v.kb.register(f, o, sr != nil)
	u, until, per := &o.Until, "boot each variant whose verdict against the first (a benchmark's primary metric) is inconclusive, in turn", "variant"
	if sr != nil {
		until, per = "boot the builds on either side of each step not clear yet (verdict inconclusive, or a change point between builds that are ~), in turn", "build"
	}
	f.BoolVar(&u.On, "until-conclusive", false, "after the first --boots rounds, "+until+", until every one is clear or --max-boots")
	f.IntVar(&u.MaxBoots, "max-boots", vm.DefaultMaxBoots, fmt.Sprintf("with --until-conclusive: boots of each %s at most, the first --boots included (%d or more: one boot a side is never conclusive)", per, vm.MinBoots))
	f.Float64Var(&u.Compare.Alpha, "alpha", 0.05, "with --until-conclusive: significance level of its verdicts (their noise band is 1%)")
	return c, v
}

// run boots the variants, keeps their sets and ends with their
// comparison.
func (v *vmFlags) run(c *cobra.Command) error {
	opt := &v.opt
	var err error
	if v.cl.Kernels, err = v.kb.expand(v.cl.Kernels); err != nil {
		return err
	}
	err = opt.Apply(v.cl)
	if err != nil {
		return err
	}
	opt.Job.Version, opt.Job.Command = Version, commandLine(c.Context())
	if opt.Labels, err = result.ParseLabels(v.labels); err != nil {
		return err
	}
	opt.Log = c.ErrOrStderr()
	closeOutputs, err := opt.OpenOutputs(v.console, v.output)
	if err != nil {
		return err
	}
	defer closeOutputs()
	rec, err := v.rf.open(c.Context())
	if err != nil {
		return err
	}
	defer rec.done(c.ErrOrStderr())
	if !v.rf.off {
		// The host's session noise, as kdelta compare finds it: the
		// questions the boots wait on and the comparison printed at
		// the end are judged alike.
		opt.Until.Noise = storeNoise(c.Context(), v.rf.loc)
	}
	sets, runErr := v.sr.Run(c.Context(), opt)
	for _, s := range sets {
		report.Show(c.OutOrStdout(), s, report.ShowOptions{})
	}
	if err := vm.Keep(c.ErrOrStderr(), sets, rec.record, rec != nil, v.output); err != nil {
		return err
	}
	if runErr != nil && c.Context().Err() != nil {
		return &exitError{code: ExitInterrupted, err: runErr}
	}
	if runErr != nil {
		return runErr
	}
	if v.sr != nil {
		fmt.Fprintln(c.OutOrStdout())
		if err := report.WriteSeriesRun(c.OutOrStdout(), v.sr); err != nil {
			return err
		}
		report.WriteCommitSteps(c.OutOrStdout(), v.sr.Commits(opt.Until.CompareOptions()))
		return nil
	}
	r, err := vm.Compare(sets, opt.Until.CompareOptions())
	if r == nil || err != nil {
		return err
	}
	fmt.Fprintln(c.OutOrStdout())
	if err := report.WriteCompare(c.OutOrStdout(), r, "text"); err != nil {
		return err
	}
	for _, l := range report.BootStops(opt.Until.Stops) {
		fmt.Fprintln(c.OutOrStdout(), l)
	}
	return nil
}
