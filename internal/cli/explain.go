package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/explain"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
)

func newExplainCmd() *cobra.Command {
	var format string
	var cf compareFlags
	c := &cobra.Command{
		Use:   "explain A B",
		Short: "Why B differs from A, as facts: verdict, setup, per-operation work, profiles, design",
		Long:  longHelp("explain"),
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := report.CheckFormat(format, report.ExplainFormats); err != nil {
				return err
			}
			so, err := cf.options()
			if err != nil {
				return err
			}
			given, err := cf.noise.value()
			if err != nil {
				return err
			}
			refs := newResolver(c.Context(), "")
			defer refs.Close()
			var sets [2]*result.Set
			for i, a := range args {
				if sets[i], err = refs.Side(a); err != nil {
					return err
				}
			}
			names := compare.Names(sets[:], args)
			rep, err := explain.Explain(compare.Input{Name: names[0], Set: sets[0]}, compare.Input{Name: names[1], Set: sets[1]},
				explain.Options{Stats: so, Noise: refs.Noise, SessionNoise: given})
			if err != nil {
				return fmt.Errorf("explain: %w", err)
			}
			return report.WriteExplain(c.OutOrStdout(), rep, format)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "text", "report format: "+strings.Join(report.ExplainFormats, ", ")+" (text is 72 columns, mail-ready)")
	cf.format = "text"
	f.Float64Var(&cf.alpha, "alpha", 0.05, "significance level")
	f.StringVar(&cf.threshold, "threshold", "1%", "noise band: changes inside ±threshold do not matter (percent)")
	f.StringVar(&cf.test, "test", "mannwhitney", "mannwhitney or welch")
	cf.noise.register(f)
	return withStore(c)
}
