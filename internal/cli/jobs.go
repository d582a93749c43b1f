package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/lab"
	"github.com/kdelta/kdelta/internal/report"
)

func newJobsCmd() *cobra.Command {
	var loc string
	c := &cobra.Command{
		Use:   "jobs",
		Short: "The lab's jobs: ls, show, wait, cancel, retry",
		Long:  longHelp("jobs"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return c.Help()
		},
	}
	c.PersistentFlags().StringVar(&loc, "store", "", storeUsage)
	var o lab.ListOptions
	var states string
	ls := &cobra.Command{
		Use:   "ls [--state S,...] [--limit N]",
		Short: "List the jobs, newest first: id, state, agent, runs stored, attempt, job",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if states != "" {
				o.States = strings.Split(states, ",")
			}
			jobs, err := lab.ListJobs(c.Context(), storeLocation(c.Context(), loc), o)
			if err != nil {
				return err
			}
			report.WriteJobs(c.OutOrStdout(), jobs, time.Now())
			return nil
		},
	}
	ls.Flags().StringVar(&states, "state", "", "only jobs in these states (available, running, completed, retryable, cancelled, discarded...)")
	ls.Flags().IntVar(&o.Limit, "limit", 100, "list at most this many")
	c.AddCommand(ls,
		jobsCmd(&loc, "show", "Show jobs in full: state, agent, runs stored, result sets, errors", lab.Show),
		jobsCmd(&loc, "wait", "Wait until the jobs are finished; exit 1 unless each completed", lab.Wait),
		jobsCmd(&loc, "cancel", "Cancel the jobs (a running one stops)", lab.Cancel),
		jobsCmd(&loc, "retry", "Make finished or waiting jobs available again at once", lab.Retry))
	return c
}

func jobsCmd(loc *string, name, short string, act lab.JobAction) *cobra.Command {
	return &cobra.Command{
		Use:   name + " ID...",
		Short: short,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var ids []int64
			for _, a := range args {
				id, err := strconv.ParseInt(a, 10, 64)
				if err != nil || id <= 0 {
					return fmt.Errorf("jobs %s: %q is not a job id", name, a)
				}
				ids = append(ids, id)
			}
			jobs, err := lab.Jobs(c.Context(), storeLocation(c.Context(), *loc), ids, act, 200*time.Millisecond)
			now := time.Now()
			for _, j := range jobs {
				report.WriteJob(c.OutOrStdout(), j, now)
			}
			if err != nil {
				return err
			}
			for _, j := range jobs {
				if act == lab.Wait && j.State != "completed" {
					return &exitError{code: ExitBad, err: fmt.Errorf("job %d: %s", j.ID, j.State)}
				}
			}
			return nil
		},
	}
}
