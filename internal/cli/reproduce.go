package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/mail"
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
			if len(kernels) > 0 && run {
				return errors.New("--kernel with --run: not built yet; write the plan with --plan --kernel and run it with kdelta vm -f FILE")
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
				return reproduceRun(c, name, a, jobs, output, stdout, stderr)
			}
			report.Reading(stdout, a)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&plan, "plan", false, "print the experiment as job files (kdelta run -f) instead")
	f.BoolVar(&run, "run", false, "run the experiment on this machine and write a reply draft")
	f.BoolVar(&quick, "quick", false, "with --run or --plan: at most 3 runs, each of the quick suite's size")
	f.StringArrayVar(&kernels, "kernel", nil, "with --plan: a kernel to boot per variant of the mail (repeatable)")
	f.StringVarP(&output, "output", "o", "", "with --run: write the reply draft to this file (default: standard output)")
	return c
}

// reproduceRun runs each job of the plan through kdelta run, in this
// process, and writes the reply draft.
func reproduceRun(c *cobra.Command, name string, a *mail.Analysis, jobs []*mail.Job, output string, stdout, stderr io.Writer) error {
	if len(jobs) == 0 {
		return fmt.Errorf("%s: no command of the mail maps to a kdelta workload: nothing to run", name)
	}
	if output != "" {
		if abs, err := filepath.Abs(output); err == nil {
			if in, err := filepath.Abs(name); err == nil && abs == in {
				return fmt.Errorf("-o %s: is the mail itself", output)
			}
		}
		if fi, err := os.Lstat(output); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("-o %s: not a regular file", output)
		}
	}
	dir, err := os.MkdirTemp("", "kdelta-reproduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var sets []*result.Set
	for i, j := range jobs {
		jf := filepath.Join(dir, fmt.Sprintf("job%d.toml", i+1))
		if err := os.WriteFile(jf, []byte(j.TOML(filepath.Base(name), nil)), 0o644); err != nil {
			return err
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
	tmp, err := os.CreateTemp(filepath.Dir(output), ".reply-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), output)
}
