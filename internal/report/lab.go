package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/kdelta/kdelta/internal/lab"
)

// shown makes s safe for a terminal: a string with control or
// non-printable characters is quoted with them escaped.
func shown(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// WriteSubmitted writes one line per job queued: its id and agent.
func WriteSubmitted(w io.Writer, jobs []lab.Submitted) {
	for _, j := range jobs {
		fmt.Fprintf(w, "%d\t%s\n", j.ID, shown(j.Agent))
	}
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return now.Sub(t).Round(time.Second).String() + " ago"
}

// WriteJobs writes a table of jobs.
func WriteJobs(w io.Writer, jobs []lab.JobInfo, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tAGENT\tRUNS\tATTEMPT\tCREATED\tJOB")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%s\t%d/%d\t%s\t%s\n", j.ID, j.State, shown(j.Args.Agent), j.Stored, asked(j.Args.Runs),
			j.Attempt, j.MaxAttempts, ago(now, j.Created), shown(j.Args.Describe()))
	}
	tw.Flush()
}

// WriteJob writes one job in full.
func WriteJob(w io.Writer, j lab.JobInfo, now time.Time) {
	fmt.Fprintf(w, "job %d: %s\n", j.ID, j.State)
	fmt.Fprintf(w, "  command:  kdelta %s\n", shown(j.Args.CommandLine()))
	sel := j.Args.Select
	if sel == "" {
		sel = "-"
	}
	fmt.Fprintf(w, "  agent:    %s (asked: %s)\n", shown(j.Args.Agent), shown(sel))
	if b := j.Args.Boot; b != nil {
		fmt.Fprintf(w, "  boot:     kexec %s (initrd %s, append %s), back within %s\n", shown(b.Kernel), shown(OrDash(b.Initrd)), shown(OrDash(b.Append)), b.Deadline)
	}
	if b := j.Args.Booted; b != nil {
		fmt.Fprintf(w, "  booted:   %s, boot %s (job %d)\n", shown(b.Release), shown(b.BootID), b.Job)
	}
	fmt.Fprintf(w, "  runs:     %d stored of %s asked per benchmark and cell\n", j.Stored, asked(j.Args.Runs))
	fmt.Fprintf(w, "  attempt:  %d of %d\n", j.Attempt, j.MaxAttempts)
	fmt.Fprintf(w, "  created:  %s\n", ago(now, j.Created))
	if !j.Finalized.IsZero() {
		fmt.Fprintf(w, "  finished: %s\n", ago(now, j.Finalized))
	}
	if len(j.Sets) > 0 {
		fmt.Fprintf(w, "  sets:     %s\n", strings.Join(j.Sets, " "))
	}
	for _, e := range j.Errors {
		fmt.Fprintf(w, "  error:    %s\n", shown(e))
	}
}

// WriteAgents writes a table of the agents' heartbeats.
func WriteAgents(w io.Writer, agents []lab.AgentInfo, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tSEEN\tKERNEL\tBOOT\tLOAD\tJOB\tLABELS")
	for _, a := range agents {
		state := "live"
		switch {
		case a.Stopped:
			state = "stopped"
		case !a.Live(now):
			state = "lost"
		}
		job := "-"
		if a.Job != 0 && state == "live" {
			job = strconv.FormatInt(a.Job, 10)
		}
		boot := a.BootID
		if len(boot) > 8 {
			boot = boot[:8]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n", shown(a.Name), state, ago(now, a.Seen), shown(a.Kernel), shown(boot), a.Load, job, shown(a.Labels.String()))
	}
	tw.Flush()
}

// asked writes the runs a job asked for: "-" for a vm job's, which its
// boots say.
func asked(runs int) string {
	if runs == 0 {
		return "-"
	}
	return strconv.Itoa(runs)
}
