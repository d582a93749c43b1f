package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kdelta/kdelta/internal/lab"
	"github.com/kdelta/kdelta/internal/report"
)

func newSubmitCmd() *cobra.Command {
	var loc, sel, on, each string
	var boot lab.Boot
	c := &cobra.Command{
		Use:   "submit [--select LABELS | --on NAME | --each LABELS] -- run|ab|stat|vm|noop ARGS...",
		Short: "Queue a job for the lab's agents: a kdelta run, ab, stat or vm session; prints the job ids",
		Long:  longHelp("submit"),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("submit: give the job after --: run, ab, stat, vm or noop and its arguments")
			}
			args = kernelsAB(args) // ab --kernel is a vm job
			j, err := jobArgs(c.Context(), args[0], args[1:])
			if err != nil {
				return err
			}
			for _, f := range []string{"kexec", "kexec-initrd", "kexec-append", "boot-deadline"} {
				if c.Flags().Changed(f) {
					j.Boot = &boot
				}
			}
			o := lab.SubmitOptions{Store: storeLocation(c.Context(), loc), Job: j, On: on}
			if o.Select, err = lab.ParseLabels(sel, "--select"); err != nil {
				return err
			}
			if o.Each, err = lab.ParseLabels(each, "--each"); err != nil {
				return err
			}
			jobs, err := lab.Submit(c.Context(), o)
			if err != nil {
				return err
			}
			report.WriteSubmitted(c.OutOrStdout(), jobs)
			return nil
		},
	}
	c.Flags().StringVar(&loc, "store", "", storeUsage)
	c.Flags().StringVar(&sel, "select", "", "queue for one live agent with these labels, k=v[,k=v...] (the one with the fewest jobs waiting)")
	c.Flags().StringVar(&on, "on", "", "queue for the agent of this name, running or not")
	c.Flags().StringVar(&each, "each", "", "queue one job for every agent with these labels, k=v[,k=v...]")
	c.Flags().StringVar(&boot.Kernel, "kexec", "", "boot this kernel image (its path on the agent's machine) by kexec before the job, and measure in that boot")
	c.Flags().StringVar(&boot.Initrd, "kexec-initrd", "", "with --kexec: the kernel's initramfs (its path on the agent's machine)")
	c.Flags().StringVar(&boot.Append, "kexec-append", "", "with --kexec: arguments after the running kernel's command line")
	c.Flags().DurationVar(&boot.Deadline, "boot-deadline", lab.DefaultBootDeadline, "with --kexec: how long the kernel has to come back before the job fails as \"did not boot\"")
	return c
}

// jobArgs checks the job's command line as its command would, before it
// is queued, and reads the runs it asks for.
func jobArgs(ctx context.Context, command string, args []string) (lab.JobArgs, error) {
	j := lab.JobArgs{Command: command, Args: args}
	if err := lab.CheckJob(j); err != nil {
		return j, err
	}
	fs := pflag.NewFlagSet(command, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	switch command {
	case "run", "ab":
		var s sessionFlags
		s.register(fs, command == "ab")
		if err := fs.Parse(args); err != nil {
			return j, fmt.Errorf("submit: %s: %w", command, err)
		}
		o, err := s.abOptions(ctx, fs.Args())
		if err != nil {
			return j, fmt.Errorf("submit: %s: %w", command, err)
		}
		j.Runs, j.Until = o.Job.Repeat, o.Job.UntilConclusive
	case "stat":
		stat := newStatCmd()
		if err := stat.ParseFlags(args); err != nil {
			return j, fmt.Errorf("submit: stat: %w", err)
		}
		j.Runs, _ = stat.Flags().GetInt("repeat")
	case "vm":
		vmc, v := vmCommandOf("vm", "", nil)
		if err := vmc.ParseFlags(args); err != nil {
			return j, fmt.Errorf("submit: vm: %w", err)
		}
		inner := vmc.Flags().Args()
		if len(inner) == 0 || inner[0] != "run" {
			return j, errors.New("submit: vm: give the guest's run after --, as in vm --kernel IMAGE -- run WORKLOAD")
		}
		if _, err := jobArgs(ctx, "run", inner[1:]); err != nil {
			return j, err
		}
		// What kdelta vm refuses before booting, refused now and not on
		// the agent, whose kernels are its own to find.
		v.cl.Given = vmc.Flags().Changed
		if err := v.opt.CheckUntil(v.cl); err != nil {
			return j, fmt.Errorf("submit: vm: %w", err)
		}
	case "noop":
		if len(args) > 0 {
			return j, errors.New("submit: noop takes no arguments")
		}
	}
	return j, nil
}
