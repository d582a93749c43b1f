package cli

import (
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/workload"
)

func newImportCmd() *cobra.Command {
	var format, output, variant, as string
	var labels []string
	var rf recordFlags
	c := &cobra.Command{
		Use:   "import FILE... [-o out.json]",
		Short: "Read perf stat, perf bench, stress-ng, hackbench, schbench, cyclictest, Go benchmark output or a pasted table",
		Long:  longHelp("import"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(c.Context(), output, rf.loc, args...); err != nil {
				return err
			}
			if format != "" {
				if err := report.CheckFormat(format, result.Formats()); err != nil {
					return err
				}
			}
			sets, err := result.ImportFiles(c.Context(), args, format)
			if err != nil {
				return err
			}
			if sets, err = result.PickVariant(sets, variant); err != nil {
				return err
			}
			if err := workload.ImportAs(sets, as); err != nil {
				return err
			}
			ls, err := result.ParseLabels(labels)
			if err != nil {
				return err
			}
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			for _, s := range sets {
				maps.Copy(s.Labels, ls)
				if err := rec.record(s); err != nil {
					return err
				}
			}
			if output != "" {
				paths, err := result.SaveSets(output, sets)
				if len(sets) > 1 {
					fmt.Fprintf(c.ErrOrStderr(), "kdelta: one set per variant: %s\n", strings.Join(paths, " "))
				}
				return err
			}
			for _, s := range sets {
				report.Show(c.OutOrStdout(), s, report.ShowOptions{Runs: true})
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "input format (detected when empty): "+strings.Join(result.Formats(), ", "))
	c.Flags().StringVarP(&output, "output", "o", "", "write the result set to this JSON file (a table of variants: one file per variant, FILE-VARIANT.json)")
	c.Flags().StringVar(&variant, "variant", "", "import only this variant of a table of variants")
	c.Flags().StringVar(&as, "as", "", "make the imported benchmarks this workload's (its metric names and units), to compare with kdelta run WORKLOAD")
	c.Flags().StringArrayVar(&labels, "label", nil, "label the result set, k=v (repeatable)")
	rf.register(c.Flags())
	return c
}
