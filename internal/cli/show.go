package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
)

func newShowCmd() *cobra.Command {
	var (
		runs, plot     bool
		format, output string
	)
	c := &cobra.Command{
		Use:   "show FILE|ID|k=v",
		Short: "Summarise a result set: per metric n, mean ± stddev (CV), median, min, max",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkOutput(c.Context(), output, "", args[0]); err != nil {
				return err
			}
			r := newResolver(c.Context(), "")
			defer r.Close()
			if err := report.CheckFormat(format, []string{"text", report.HTMLFormat}); err != nil {
				return err
			}
			set, err := r.Saved(args[0])
			if err != nil {
				return err
			}
			if format == report.HTMLFormat {
				return report.ToFile(output, c.OutOrStdout(), func(w io.Writer) error { return report.WriteShowHTML(w, set, report.HTMLOptions{}) })
			}
			ns, nerr := r.Noises(set, "")
			err = report.ToFile(output, c.OutOrStdout(), func(w io.Writer) error {
				report.Show(w, set, report.ShowOptions{Runs: runs})
				if plot {
					report.WriteShowPlots(w, set)
				}
				report.WriteNoises(w, ns)
				return nil
			})
			if err != nil {
				return err
			}
			return nerr
		},
	}
	c.Flags().BoolVar(&runs, "runs", false, "also print every run")
	c.Flags().BoolVar(&plot, "plot", false, "also draw each metric's runs as a text strip plot")
	c.Flags().StringVar(&format, "format", "text", "output format: text, html (one self-contained page; write it with -o)")
	c.Flags().StringVarP(&output, "output", "o", "", "write the summary (text or the html page) to this file instead of stdout")
	return withStore(c)
}
