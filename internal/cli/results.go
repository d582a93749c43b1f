package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/resolve"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

func newResultsCmd() *cobra.Command {
	var loc string
	c := &cobra.Command{
		Use:   "results",
		Short: "The store of result sets: ls, show, tag, rm, export",
		Long:  longHelp("results"),
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.PersistentFlags().StringVar(&loc, "store", "", storeUsage)
	c.AddCommand(newResultsLsCmd(&loc), newResultsShowCmd(&loc), newResultsTagCmd(&loc), newResultsRmCmd(&loc), newResultsExportCmd(&loc))
	return c
}

func newResultsLsCmd(loc *string) *cobra.Command {
	var (
		labels   []string
		workload string
		asJSON   bool
	)
	c := &cobra.Command{
		Use:   "ls [k=v[,k=v]] [--label k=v]... [--workload W]",
		Short: "List the stored result sets, oldest first: id, time, kernel, runs, workloads, labels; with a query, the sets it selects",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ls, err := resolve.ParseLabelFlags(labels)
			if err != nil {
				return err
			}
			query := ""
			if len(args) == 1 {
				q, ok := resolve.ParseLabelQuery(args[0])
				if !ok {
					return fmt.Errorf("results ls: %q is not a label query k=v[,k=v]", args[0])
				}
				query, ls = args[0], append(q, ls...)
			}
			r := newResolver(c.Context(), *loc)
			defer r.Close()
			st, err := r.Store()
			if err != nil {
				return err
			}
			infos, err := st.List(c.Context(), store.Filter{Labels: ls, Workload: workload})
			if err != nil {
				return err
			}
			if asJSON {
				return report.WriteInfosJSON(c.OutOrStdout(), infos)
			}
			report.WriteInfos(c.OutOrStdout(), infos)
			if query != "" {
				fmt.Fprintln(c.OutOrStdout(), report.Selects(query, len(infos)))
			}
			return nil
		},
	}
	c.Flags().StringArrayVar(&labels, "label", nil, "only sets with this label, k=v (repeatable: all must match)")
	c.Flags().StringVar(&workload, "workload", "", "only sets with a benchmark of this workload")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func newResultsShowCmd(loc *string) *cobra.Command {
	var runs bool
	c := &cobra.Command{
		Use:   "show ID|k=v[,k=v]",
		Short: "Summarise a stored result set, as kdelta show does",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			r := newResolver(c.Context(), *loc)
			defer r.Close()
			set, err := r.Set(args[0])
			if err != nil {
				return err
			}
			report.Show(c.OutOrStdout(), set, report.ShowOptions{Runs: runs})
			return nil
		},
	}
	c.Flags().BoolVar(&runs, "runs", false, "also print every run")
	return c
}

func newResultsTagCmd(loc *string) *cobra.Command {
	return &cobra.Command{
		Use:   "tag ID|k=v[,k=v] k=v...",
		Short: "Set labels of a stored result set (k= removes label k)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			var tags []store.Label
			for _, a := range args[1:] {
				k, v, ok := strings.Cut(a, "=")
				if !ok || k == "" {
					return fmt.Errorf("results tag: %q is not key=value (key= removes the label)", a)
				}
				if err := result.CheckLabel(a, k); err != nil { // --label's rules
					return fmt.Errorf("results tag: %w", err)
				}
				tags = append(tags, store.Label{Name: k, Value: v})
			}
			r := resolve.NewWriter(c.Context(), storeLocation(c.Context(), *loc))
			defer r.Close()
			id, err := r.StoredID(args[0])
			if err != nil {
				return err
			}
			info, err := store.TagAll(c.Context(), r.Opened(), id, tags)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), report.Tagged(info))
			return nil
		},
	}
}

func newResultsRmCmd(loc *string) *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "rm ID|k=v[,k=v]... [--yes]",
		Short: "Remove stored result sets, asking first unless --yes",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			in := c.InOrStdin()
			if !yes && !isTerminal(in) {
				return errors.New("results rm: standard input is not a terminal to ask on: pass --yes to remove without asking")
			}
			r := resolve.NewWriter(c.Context(), storeLocation(c.Context(), *loc))
			defer r.Close()
			// Every name is resolved before anything is removed.
			infos, err := r.StoredInfos(args)
			if err != nil {
				return err
			}
			ask := confirm(in, c.ErrOrStderr(), yes)
			for _, info := range infos {
				if ok, more := ask(report.RemovePrompt(info)); !ok {
					fmt.Fprintf(c.OutOrStdout(), "kept %s\n", info.ID)
					if !more {
						return nil
					}
					continue
				}
				if err := r.Opened().Delete(c.Context(), info.ID); err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "removed %s\n", info.ID)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "remove without asking")
	return c
}

// confirm returns a function that asks question on w and reads the
// answer from in: ok when it is y or yes, and more false once in has no
// more answers. With yes, it asks nothing and says ok.
func confirm(in io.Reader, w io.Writer, yes bool) func(question string) (ok, more bool) {
	answers := bufio.NewReader(in)
	return func(question string) (bool, bool) {
		if yes {
			return true, true
		}
		fmt.Fprint(w, question)
		line, err := answers.ReadString('\n')
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes", err == nil
	}
}

func newResultsExportCmd(loc *string) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "export ID|k=v[,k=v] [-o FILE]",
		Short: "Write a stored result set as a JSON file (stdout without -o)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(c.Context(), output, *loc); err != nil {
				return err
			}
			r := resolve.NewWriter(c.Context(), storeLocation(c.Context(), *loc))
			defer r.Close()
			id, err := r.StoredID(args[0])
			if err != nil {
				return err
			}
			set, err := r.Opened().Get(c.Context(), id)
			if err != nil {
				return err
			}
			if output != "" {
				return result.Save(output, set)
			}
			return report.WriteSetJSON(c.OutOrStdout(), set)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "", "the JSON file to write")
	return c
}
