package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/mail"
	"github.com/kdelta/kdelta/internal/outfile"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
)

func newReproduceCmd() *cobra.Command {
	var (
		plan, run, quick bool
		kernels          []string
		output           string
	)
	c := &cobra.Command{
		Use:   "reproduce MAIL",
		Short: "Read a mail's report: its commands mapped, tables read, claims checked; rerun it and draft the reply",
		Long:  longHelp("reproduce"),
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
			name := args[0]
			var data []byte
			var err error
			if name == "-" {
				data, err = io.ReadAll(c.InOrStdin())
				name = "stdin"
			} else {
				data, err = os.ReadFile(name)
			}
			if err != nil {
				return err
			}
			a, err := mail.Analyze(filepath.Base(name), data)
			if err != nil {
				return err
			}
			if !a.Found() {
				return fmt.Errorf("%s: nothing found: no command, output, table or claim kdelta can read", name)
			}
			jobs := mail.Plan(a)
			if quick {
				for _, j := range jobs {
					j.Quick()
				}
			}
			switch {
			case plan:
				if len(jobs) == 0 {
					return fmt.Errorf("%s: no command of the mail maps to a kdelta workload (kdelta reproduce %s says why)", name, args[0])
				}
				for i, j := range jobs {
					if i > 0 {
						fmt.Fprintf(stdout, "\n# ---- job %d of %d: a placement of its own; save it as a file of its own ----\n", i+1, len(jobs))
					}
					fmt.Fprint(stdout, j.TOML(filepath.Base(name), kernels))
				}
				return nil
			case run:
				return reproduceRun(c, name, a, jobs, kernels, output, stdout, stderr)
			}
			report.Reading(stdout, a)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&plan, "plan", false, "print the experiment as job files (kdelta run -f) instead")
	f.BoolVar(&run, "run", false, "run the experiment on this machine and write a reply draft")
	f.BoolVar(&quick, "quick", false, "with --run or --plan: at most 3 runs, each of the quick suite's size")
	f.StringArrayVar(&kernels, "kernel", nil, "with --plan or --run: a kernel to boot per variant of the mail, in the mail's order (repeatable; a file, deb: or git:); --run boots each in qemu (kdelta vm -f)")
	f.StringVarP(&output, "output", "o", "", "with --run: write the reply draft to this file (default: standard output)")
	return c
}

// reproduceVM runs job i (file jf) with kdelta vm -f, its variants the
// kernels given, and returns their sets, each labelled with the mail's
// variant its kernel stands for (mail_variant), in the order booted.
func reproduceVM(c *cobra.Command, name string, i int, j *mail.Job, jf, out string, stderr io.Writer) ([]*result.Set, error) {
	if code := Main(c.Context(), []string{"vm", "-f", jf, "-o", out}, stderr, stderr); code != ExitOK {
		return nil, &exitError{code: code, err: fmt.Errorf("%s: job %d of the plan failed (kdelta vm -f, exit %d)", name, i+1, code)}
	}
	sets, err := j.LoadBooted(out)
	if err != nil {
		return nil, fmt.Errorf("%s: job %d of the plan: %w", name, i+1, err)
	}
	return sets, nil
}

// reproduceRun runs each job of the plan through kdelta run, in this
// process, or, with kernels, through kdelta vm -f, each kernel booted in
// qemu as a variant of its own, and writes the reply draft.
func reproduceRun(c *cobra.Command, name string, a *mail.Analysis, jobs []*mail.Job, kernels []string, output string, stdout, stderr io.Writer) error {
	if len(jobs) == 0 {
		return fmt.Errorf("%s: no command of the mail maps to a kdelta workload: nothing to run", name)
	}
	if output != "" {
		if err := outfile.Check(output, name); err != nil {
			return fmt.Errorf("-o %s: %w", output, err)
		}
	}
	dir, err := os.MkdirTemp("", "kdelta-reproduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The job files lie in a directory of their own, where a kernel named
	// by a relative path would be looked for: name it from here.
	kernels = mail.AbsKernels(kernels)
	var sets []*result.Set
	for i, j := range jobs {
		jf := filepath.Join(dir, fmt.Sprintf("job%d.toml", i+1))
		if err := os.WriteFile(jf, []byte(j.TOML(filepath.Base(name), kernels)), 0o644); err != nil {
			return err
		}
		if len(kernels) > 0 {
			vs, err := reproduceVM(c, name, i, j, jf, filepath.Join(dir, fmt.Sprintf("sets%d", i+1)), stderr)
			if err != nil {
				return err
			}
			sets = append(sets, vs...)
			continue
		}
		out := filepath.Join(dir, fmt.Sprintf("set%d.json", i+1))
		if code := Main(c.Context(), []string{"run", "-f", jf, "-o", out}, stderr, stderr); code != ExitOK {
			return &exitError{code: code, err: fmt.Errorf("%s: job %d of the plan failed (kdelta run -f, exit %d)", name, i+1, code)}
		}
		s, err := result.Load(out)
		if err != nil {
			return err
		}
		sets = append(sets, s)
	}
	var b bytes.Buffer
	report.Reply(&b, a, sets)
	if output == "" {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	return outfile.WriteBytes(output, b.Bytes())
}
