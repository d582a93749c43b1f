package cli

import (
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
)

func newImportCmd() *cobra.Command {
	var format, output string
	var labels []string
	var rf recordFlags
	c := &cobra.Command{
		Use:   "import FILE... [-o out.json]",
		Short: "Read perf stat, perf bench, stress-ng, hackbench, Go benchmark output or a pasted table",
		Long:  longHelp("import"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "" {
				if err := report.CheckFormat(format, result.Formats()); err != nil {
					return err
				}
			}
			merged, err := result.ImportFiles(args, format)
			if err != nil {
				return err
			}
			ls, err := result.ParseLabels(labels)
			if err != nil {
				return err
			}
			maps.Copy(merged.Labels, ls)
			rec, err := rf.open(c.Context())
			if err != nil {
				return err
			}
			defer rec.done(c.ErrOrStderr())
			if err := rec.record(merged); err != nil {
				return err
			}
			if output != "" {
				return result.Save(output, merged)
			}
			report.Show(c.OutOrStdout(), merged, report.ShowOptions{Runs: true})
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "input format (detected when empty): "+strings.Join(result.Formats(), ", "))
	c.Flags().StringVarP(&output, "output", "o", "", "write the result set to this JSON file")
	c.Flags().StringArrayVar(&labels, "label", nil, "label the result set, k=v (repeatable)")
	rf.register(c.Flags())
	return c
}
