package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/vm"
)

func newVMCmd() *cobra.Command {
	var (
		kernels, appends, labels []string
		jobFile                  string
		boots, cpus              int
		mem, accel, modules      string
		output, binary, console  string
		timeout, bootDeadline    time.Duration
		rf                       recordFlags
	)
	c := &cobra.Command{
		Use:   "vm --kernel IMAGE [--append ARGS] [--kernel IMAGE2 --append ARGS2 ...] [flags] -- run WORKLOAD... [-r N]",
		Short: "Boot kernels under test in qemu and run workloads inside",
		Long: `Boot each kernel image in qemu with kdelta itself as the guest's /init,
run the workloads given after -- inside (as kdelta run would), and bring the
result set home over the guest's second serial port. Each kernel and command
line pair is a variant; with --boots N the variants boot in turn, A B A B ...,
so the host's drift falls on all of them alike, and every run records its
boot index. Each variant's result set is recorded in the store (unless
--no-store) and, with -o DIR, written to DIR.

--append pairs with --kernel in order; one --kernel with several --append
boots the same image with each command line, and one --append applies to
every kernel. kdelta adds "console=ttyS0 panic=-1" before the given command
line; the result set's cmdline label is the --append text as given, and its
fingerprint records the guest's /proc/cmdline. With two variants or more the
output ends with their comparison (as kdelta compare, the first variant the
baseline).

The guest's /init is this kdelta binary, which must be static
(CGO_ENABLED=0 go build ./cmd/kdelta). With --accel auto, KVM is used when
it can create a VM and starts the kernel: a KVM boot that fails before the
kernel's first line (qemu aborts or exits, or the console stays silent for
--boot-deadline) boots again under TCG, as do the later ones, which is said
once and remembered until the host reboots. TCG's timings are emulated: such
result sets are labelled accel=tcg and carry a warning. Workloads that need kernel
modules (bridge) are skipped in the guest unless --modules gives the
kernel's modules (a lib/modules/RELEASE directory).`,
		RunE: func(c *cobra.Command, args []string) error {
			var job *vm.Job
			var variants []vm.Variant
			var err error
			if jobFile != "" {
				if c.ArgsLenAtDash() >= 0 || len(args) > 0 {
					return errors.New("vm: -f takes the workloads from the job file: give no command after --")
				}
				if job, variants, err = vmJobFile(jobFile, kernels, c.Flags().Changed, &boots, &cpus, &mem, &accel, &modules, &timeout, &bootDeadline); err != nil {
					return err
				}
			} else {
				dash := c.ArgsLenAtDash()
				if dash < 0 {
					return errors.New("vm: give the guest's command after --, e.g. kdelta vm --kernel IMAGE -- run syscall -r 5")
				}
				if dash > 0 {
					return fmt.Errorf("vm: unexpected arguments before --: %s", strings.Join(args[:dash], " "))
				}
				if job, err = vm.ParseJob(args[dash:]); err != nil {
					return err
				}
				if variants, err = pairVariants(kernels, appends); err != nil {
					return err
				}
			}
			job.Version = Version
			job.Command = append([]string{"kdelta"}, os.Args[1:]...)
			opt := &vm.Options{
				Variants:     variants,
				Boots:        boots,
				CPUs:         cpus,
				Mem:          mem,
				Accel:        accel,
				Modules:      modules,
				Job:          job,
				Timeout:      timeout,
				BootDeadline: bootDeadline,
				Binary:       binary,
				Labels:       map[string]string{},
				Log:          c.ErrOrStderr(),
			}
			for _, l := range labels {
				k, v, ok := strings.Cut(l, "=")
				if !ok || k == "" {
					return fmt.Errorf("--label: %q is not key=value", l)
				}
				opt.Labels[k] = v
			}
			if console != "" {
				f, err := os.Create(console)
				if err != nil {
					return fmt.Errorf("--console: %w", err)
				}
				defer f.Close()
				opt.Console = f
			}
			if output != "" {
				if err := os.MkdirAll(output, 0o755); err != nil {
					return fmt.Errorf("-o %s: %w", output, err)
				}
			}
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			sets, runErr := vm.Run(c.Context(), opt)
			for _, s := range sets {
				report.Show(c.OutOrStdout(), s, report.ShowOptions{})
				if err := rec.record(s); err != nil {
					return err
				}
				if rec != nil {
					fmt.Fprintf(c.ErrOrStderr(), "kdelta: vm: variant %s recorded as %s\n", s.Labels["variant"], s.ID)
				}
				if output == "" {
					continue
				}
				path := filepath.Join(output, setFileName(s))
				if err := result.Save(path, s); err != nil {
					return err
				}
				fmt.Fprintf(c.ErrOrStderr(), "kdelta: vm: variant %s saved in %s\n", s.Labels["variant"], path)
			}
			if output == "" && rec == nil && len(sets) > 0 {
				fmt.Fprintln(c.ErrOrStderr(), "kdelta: results not saved (use -o DIR, or leave out --no-store)")
			}
			if runErr != nil && c.Context().Err() != nil {
				return &exitError{code: ExitInterrupted, err: runErr}
			}
			if runErr != nil {
				return runErr
			}
			// Two variants or more end with their comparison, as kdelta ab
			// ends, the first variant the baseline.
			if len(sets) < 2 {
				return nil
			}
			ids := make([]string, len(sets))
			for i, s := range sets {
				ids[i] = s.ID
			}
			names := compare.Names(sets, ids)
			ins := make([]compare.Input, len(sets))
			for i, s := range sets {
				ins[i] = compare.Input{Name: names[i], Set: s}
			}
			r, err := compare.Compare(ins, compare.Options{})
			if err != nil {
				return fmt.Errorf("vm: compare the variants: %w", err)
			}
			fmt.Fprintln(c.OutOrStdout())
			return report.WriteCompare(c.OutOrStdout(), r, "text")
		},
	}
	f := c.Flags()
	f.StringVarP(&jobFile, "file", "f", "", "job file whose [[variant]] kernel/append pairs, workloads and [vm] table to run (examples/001-messaging-preempt-vm.toml); --kernel replaces every variant's kernel")
	f.StringArrayVar(&kernels, "kernel", nil, "kernel image (bzImage) to boot (repeatable: one variant each)")
	f.StringArrayVar(&appends, "append", nil, "kernel command line of the variant (repeatable, paired with --kernel in order)")
	f.IntVar(&boots, "boots", 1, "boots per variant, alternating between variants (A B A B ...)")
	f.IntVar(&cpus, "cpus", vm.DefaultCPUs, "guest CPUs")
	f.StringVar(&mem, "mem", vm.DefaultMem, "guest memory, as qemu -m (512M, 2G)")
	f.StringVar(&accel, "accel", "auto", "kvm, tcg, or auto (KVM if it starts the kernel, else TCG)")
	f.StringVar(&modules, "modules", "", "the kernel's modules (lib/modules/RELEASE, or a tree holding it) for workloads that need some")
	f.DurationVar(&timeout, "timeout", vm.DefaultTimeout, "kill a guest (qemu) that has not powered off after this long")
	f.DurationVar(&bootDeadline, "boot-deadline", vm.DefaultBootDeadline, "how long KVM has to start the kernel before TCG is used instead")
	f.StringVar(&binary, "guest-binary", "", "static kdelta binary to use as the guest's /init (default: this one)")
	f.StringVar(&console, "console", "", "write the guest consoles (kernel messages, /init's lines) to this file")
	f.StringArrayVar(&labels, "label", nil, "label every result set, k=v (repeatable; kernel, cmdline, variant and accel are set)")
	f.StringVarP(&output, "output", "o", "", "write one result set per variant into this directory")
	rf.register(f)
	return c
}

// pairVariants pairs --kernel and --append values: in order when there
// are as many of each, one kernel with every command line, or one command
// line (or none) with every kernel.
func pairVariants(kernels, appends []string) ([]vm.Variant, error) {
	if len(kernels) == 0 {
		return nil, errors.New("vm: --kernel IMAGE is required")
	}
	if len(appends) == 0 {
		appends = []string{""}
	}
	var vs []vm.Variant
	switch {
	case len(appends) == len(kernels):
		for i, k := range kernels {
			vs = append(vs, vm.Variant{Kernel: k, Append: appends[i]})
		}
	case len(kernels) == 1:
		for _, a := range appends {
			vs = append(vs, vm.Variant{Kernel: kernels[0], Append: a})
		}
	case len(appends) == 1:
		for _, k := range kernels {
			vs = append(vs, vm.Variant{Kernel: k, Append: appends[0]})
		}
	default:
		return nil, fmt.Errorf("vm: %d --kernel and %d --append do not pair: give one --append per --kernel, one --kernel, or at most one --append", len(kernels), len(appends))
	}
	return vs, nil
}

// setFileName names a variant's result file: its letter, kernel release
// and command line, with characters unsafe in file names replaced.
func setFileName(s *result.Set) string {
	name := s.Labels["variant"] + "-" + s.Labels["kernel"]
	if cl := s.Labels["cmdline"]; cl != "" {
		name += "-" + cl
	}
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '=':
			return r
		}
		return '_'
	}, name)
	if len(clean) > 120 {
		clean = clean[:120]
	}
	return clean + ".json"
}

// vmJobFile reads a job file for kdelta vm: its variants' kernels and
// command lines (one --kernel replaces every variant's kernel, so an
// example file runs with the image at hand), its workloads, repeats and
// labels, and its [vm] table for the settings not given as flags.
func vmJobFile(path string, kernels []string, changed func(string) bool, boots, cpus *int, mem, accel, modules *string, timeout, bootDeadline *time.Duration) (*vm.Job, []vm.Variant, error) {
	j, err := job.Load(path)
	if err != nil {
		return nil, nil, err
	}
	if len(kernels) > 1 {
		return nil, nil, errors.New("--kernel: with -f, give one image for every variant, or none")
	}
	var variants []vm.Variant
	for _, v := range j.Variants {
		if !v.Booted() {
			return nil, nil, fmt.Errorf("%s: variant %s has no kernel or append: kdelta vm boots kernels (use kdelta ab for knobs)", v.Where, v.Name)
		}
		k := v.Kernel
		if len(kernels) == 1 {
			k = kernels[0]
		} else if k != "" && !filepath.IsAbs(k) {
			k = filepath.Join(filepath.Dir(path), k)
		}
		variants = append(variants, vm.Variant{Kernel: k, Append: v.Append})
	}
	if len(variants) == 0 {
		return nil, nil, fmt.Errorf("%s: no [[variant]] with a kernel to boot", path)
	}
	vj := &vm.Job{Repeat: 5, Warmup: 1, Timeout: j.Timeout, CPUs: j.CPUs, FIFO: j.FIFO, Labels: j.Labels}
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
		return nil, nil, fmt.Errorf("%s: no [[workload]] to run", path)
	}
	if m := j.VM; m != nil {
		if !changed("boots") && m.Boots > 0 {
			*boots = m.Boots
		}
		if !changed("cpus") && m.CPUs > 0 {
			*cpus = m.CPUs
		}
		if !changed("mem") && m.Mem != "" {
			*mem = m.Mem
		}
		if !changed("accel") && m.Accel != "" {
			*accel = m.Accel
		}
		if !changed("modules") && m.Modules != "" {
			*modules = m.Modules
		}
		if !changed("timeout") && m.Timeout > 0 {
			*timeout = m.Timeout
		}
		if !changed("boot-deadline") && m.BootDeadline > 0 {
			*bootDeadline = m.BootDeadline
		}
	}
	return vj, variants, nil
}
