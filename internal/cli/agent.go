package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/lab"
)

func newAgentCmd() *cobra.Command {
	var o lab.AgentOptions
	var loc, labels string
	c := &cobra.Command{
		Use:   "agent [--store URL] [--name NAME] [--labels k=v,...] [--once]",
		Short: "Run the lab's jobs queued for this machine, each run stored as it finishes",
		Long:  longHelp("agent"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if o.Labels, err = lab.ParseLabels(labels, "--labels"); err != nil {
				return err
			}
			o.Store, o.Log = storeLocation(c.Context(), loc), c.ErrOrStderr()
			return lab.RunAgent(c.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&loc, "store", "", storeUsage)
	f.StringVar(&o.Name, "name", "", "the agent's name in the lab (default: the host name)")
	f.StringVar(&labels, "labels", "", "labels that submit --select and --each match, k=v[,k=v...] (host, arch and cpus are added)")
	f.BoolVar(&o.Once, "once", false, "stop when no job is queued for this agent and none runs")
	f.DurationVar(&o.Lease, "lease", lab.DefaultLease, "how long this agent's heartbeat may stop before the others hand its job back")
	f.StringVar(&o.Reboot, "reboot", lab.RebootKexec, "how a --kexec job reboots: kexec, or exit (load nothing, exit instead of rebooting: for tests and trials; whoever starts the agent again plays the booted machine)")
	c.AddCommand(newAgentInstallCmd())
	f.StringVar(&o.Root, "root", "", "read the running kernel's release, command line and boot id (and the load) under this directory instead of / (with --reboot exit, the booted machine a test plays)")
	return c
}

func newAgentInstallCmd() *cobra.Command {
	var o lab.InstallOptions
	var loc, labels string
	c := &cobra.Command{
		Use:   "install [--store URL] [--name NAME] [--labels k=v,...] [--unit-dir DIR] [--env-file FILE]",
		Short: "Write the systemd unit that starts this machine's agent at boot (and after a kexec job's reboot)",
		Long:  longHelp("agent-install"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if o.Labels, err = lab.ParseLabels(labels, "--labels"); err != nil {
				return err
			}
			o.Store = storeLocation(c.Context(), loc)
			paths, err := lab.Install(o)
			for _, p := range paths {
				fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", p)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "then: systemctl daemon-reload && systemctl enable --now %s\n", lab.UnitName)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&loc, "store", "", storeUsage+"; written to --env-file, readable by root only")
	f.StringVar(&o.Name, "name", "", "the agent's name in the lab (default: the host name)")
	f.StringVar(&labels, "labels", "", "the agent's labels, k=v[,k=v...]")
	f.DurationVar(&o.Lease, "lease", lab.DefaultLease, "the agent's --lease")
	f.StringVar(&o.Exe, "exe", "", "the kdelta binary the unit starts (default: this one)")
	f.StringVar(&o.UnitDir, "unit-dir", lab.DefaultUnitDir, "where the unit "+lab.UnitName+" goes")
	f.StringVar(&o.EnvFile, "env-file", lab.DefaultEnvFile, "the environment file holding KDELTA_STORE")
	return c
}
