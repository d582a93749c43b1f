package lab

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// An AgentInfo is an agent's last heartbeat.
type AgentInfo struct {
	Name, ClientID, Queue string
	Labels                Labels
	Kernel, BootID        string
	Load                  float64
	Job                   int64 // the job it runs, 0 for none
	Lease                 time.Duration
	Started, Seen         time.Time
	Stopped               bool
}

// Live tells whether the agent's heartbeat is within its lease at now.
func (a AgentInfo) Live(now time.Time) bool {
	return !a.Stopped && !a.Seen.IsZero() && now.Sub(a.Seen) <= a.Lease
}

// Agents are the lab's agents, by name.
func (l *Lab) Agents(ctx context.Context) ([]AgentInfo, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT name, client_id, queue, labels, kernel, boot_id, load, job_id, lease_ns, started, seen, stopped
		FROM lab_agents ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentInfo
	for rows.Next() {
		var a AgentInfo
		var labels string
		var lease, started, seen int64
		var stopped int
		if err := rows.Scan(&a.Name, &a.ClientID, &a.Queue, &labels, &a.Kernel, &a.BootID, &a.Load, &a.Job, &lease, &started, &seen, &stopped); err != nil {
			return nil, err
		}
		a.Labels, err = ParseLabels(labels, "agent "+a.Name)
		if err != nil {
			return nil, err
		}
		a.Lease, a.Started, a.Seen, a.Stopped = time.Duration(lease), time.Unix(0, started), time.Unix(0, seen), stopped != 0
		out = append(out, a)
	}
	return out, rows.Err()
}

// ListAgents opens the lab at loc and lists its agents.
func ListAgents(ctx context.Context, loc string) ([]AgentInfo, error) {
	l, err := open(ctx, loc, false, nil)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	a, err := l.Agents(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.loc, err)
	}
	return a, nil
}

// A JobInfo describes a lab job.
type JobInfo struct {
	ID          int64
	State       string
	Args        JobArgs
	Attempt     int
	MaxAttempts int
	Created     time.Time
	Finalized   time.Time // zero until it is
	Errors      []string
	// Stored is the measured runs it stored, over its cells and
	// benchmarks; Sets its result sets' ids, once completed.
	Stored int
	Sets   []string
}

// Done tells whether the job reached a final state.
func (j JobInfo) Done() bool {
	return j.State == "completed" || j.State == "cancelled" || j.State == "discarded"
}

// ListOptions select jobs.
type ListOptions struct {
	// States keeps the jobs in these states (River's: available, running,
	// completed, retryable, cancelled, discarded...); none keeps all.
	States []string
	// Limit bounds the jobs listed, newest first (0: 100).
	Limit int
}

// ListJobs lists the lab's jobs, newest first.
func ListJobs(ctx context.Context, loc string, o ListOptions) ([]JobInfo, error) {
	l, err := open(ctx, loc, false, nil)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	p := river.NewJobListParams().Kinds(Kind).OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(max(o.Limit, 1))
	if o.Limit == 0 {
		p = p.First(100)
	}
	if len(o.States) > 0 {
		var st []rivertype.JobState
		for _, s := range o.States {
			if !validState(s) {
				return nil, fmt.Errorf("--state: %q is not a job state (%s)", s, strings.Join(stateNames(), ", "))
			}
			st = append(st, rivertype.JobState(s))
		}
		p = p.States(st...)
	}
	res, err := l.client.JobList(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.loc, err)
	}
	out := make([]JobInfo, 0, len(res.Jobs))
	for _, row := range res.Jobs {
		j, err := l.info(ctx, row)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

func stateNames() []string {
	var out []string
	for _, s := range rivertype.JobStates() {
		out = append(out, string(s))
	}
	return out
}

func validState(s string) bool {
	for _, st := range rivertype.JobStates() {
		if string(st) == s {
			return true
		}
	}
	return false
}

// info describes job row, with what it stored.
func (l *Lab) info(ctx context.Context, row *rivertype.JobRow) (JobInfo, error) {
	j := JobInfo{ID: row.ID, State: string(row.State), Attempt: row.Attempt, MaxAttempts: row.MaxAttempts, Created: row.CreatedAt}
	if row.FinalizedAt != nil {
		j.Finalized = *row.FinalizedAt
	}
	for _, e := range row.Errors {
		j.Errors = append(j.Errors, e.Error)
	}
	if err := json.Unmarshal(row.EncodedArgs, &j.Args); err != nil {
		return j, fmt.Errorf("%s: job %d: %w", l.loc, row.ID, err)
	}
	if err := l.db.QueryRowContext(ctx, q(l.pg, "SELECT COUNT(*) FROM lab_runs WHERE job_id = ? AND warmup = 0"), row.ID).Scan(&j.Stored); err != nil {
		return j, fmt.Errorf("%s: %w", l.loc, err)
	}
	if row.State == rivertype.JobStateCompleted {
		rows, err := l.db.QueryContext(ctx, q(l.pg, "SELECT set_id FROM lab_sets WHERE job_id = ? ORDER BY cell"), row.ID)
		if err != nil {
			return j, fmt.Errorf("%s: %w", l.loc, err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return j, err
			}
			j.Sets = append(j.Sets, id)
		}
		return j, rows.Err()
	}
	return j, nil
}

// ErrNoJob is wrapped by the errors for job ids the lab does not have.
var ErrNoJob = errors.New("no such job")

// JobAction is what Jobs does to each job it is given.
type JobAction int

// The actions.
const (
	Show JobAction = iota
	Wait
	Cancel
	Retry
)

// Jobs does act to the jobs ids and returns them as they are after it:
// Show reads them, Wait waits until every one is finished (polling every
// poll), Cancel cancels them (a running one is told to stop), Retry makes
// a finished one available again.
func Jobs(ctx context.Context, loc string, ids []int64, act JobAction, poll time.Duration) ([]JobInfo, error) {
	l, err := open(ctx, loc, false, nil)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	out := make([]JobInfo, 0, len(ids))
	for _, id := range ids {
		var row *rivertype.JobRow
		switch act {
		case Cancel:
			row, err = l.client.JobCancel(ctx, id)
		case Retry:
			// A completed job stored all its runs: run again it would
			// measure nothing, so it is submitted again instead.
			if row, err = l.client.JobGet(ctx, id); err == nil && row.State == rivertype.JobStateCompleted {
				return out, fmt.Errorf("jobs retry: job %d completed: submit it again to measure again", id)
			}
			if err == nil {
				row, err = l.client.JobRetry(ctx, id)
			}
		default:
			row, err = l.client.JobGet(ctx, id)
		}
		for act == Wait && err == nil && !finalState(row.State) {
			select {
			case <-ctx.Done():
				return out, ctx.Err()
			case <-time.After(poll):
			}
			row, err = l.client.JobGet(ctx, id)
		}
		if errors.Is(err, rivertype.ErrNotFound) || errors.Is(err, sql.ErrNoRows) {
			return out, fmt.Errorf("job %d: %w in %s", id, ErrNoJob, l.loc)
		}
		if err != nil {
			return out, fmt.Errorf("%s: job %d: %w", l.loc, id, err)
		}
		j, err := l.info(ctx, row)
		if err != nil {
			return out, err
		}
		out = append(out, j)
	}
	return out, nil
}

func finalState(s rivertype.JobState) bool {
	return s == rivertype.JobStateCompleted || s == rivertype.JobStateCancelled || s == rivertype.JobStateDiscarded
}
