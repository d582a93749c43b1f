package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

func newEnvCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "env",
		Short: "Print this machine's fingerprint: kernel, config, preemption, CPU, tuning",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fp := runner.Fingerprint(Version)
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(fp)
			}
			if err := report.WriteEnv(c.OutOrStdout(), fp); err != nil {
				return err
			}
			for _, w := range sysinfo.Warnings(fp, nil) {
				fmt.Fprintf(c.OutOrStdout(), "warning: %s\n", w)
			}
			refs := newResolver(c.Context(), "")
			defer refs.Close()
			ns, err := refs.Noises(nil, fp.Hostname.Value)
			report.WriteNoises(c.OutOrStdout(), ns)
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	diff := &cobra.Command{
		Use:   "diff A B",
		Short: "What differs between two fingerprints (result files, or - for this machine)",
		Long:  longHelp("env-diff"),
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			var sets [2]*result.Set
			for i, a := range args {
				if a == "-" {
					sets[i] = &result.Set{Env: runner.Fingerprint(Version)}
					continue
				}
				s, err := loadAny(c.Context(), a)
				if err != nil {
					return err
				}
				if s.Env == nil {
					return fmt.Errorf("%s: holds no environment fingerprint", a)
				}
				sets[i] = s
			}
			report.WriteConditionDiffs(c.OutOrStdout(), result.DiffConditions(sets[0].Conditions, sets[1].Conditions))
			return report.WriteEnvDiff(c.OutOrStdout(), sysinfo.Diff(sets[0].Env, sets[1].Env))
		},
	}
	c.AddCommand(diff)
	return c
}
