package lab

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// reapLoop hands back, every half lease, the running jobs of agents whose
// heartbeat stopped.
func (a *agent) reapLoop(ctx context.Context) {
	t := time.NewTicker(a.opt.Lease / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// An agent that itself lost the database for a while cannot tell
		// another's death from its own outage: it waits a lease first.
		if time.Since(time.Unix(0, a.dbOK.Load())) < a.opt.Lease {
			continue
		}
		if err := a.reap(ctx); err != nil && ctx.Err() == nil {
			a.dbFailed()
		}
	}
}

// reap makes each running job whose client is not a live agent's
// available again on its queue (discarded when it used its attempts), as
// River's rescuer would after RescueStuckJobsAfter, but after a lease: the
// job resumes from the runs it stored.
func (a *agent) reap(ctx context.Context) error {
	live, err := a.lab.liveClients(ctx)
	if err != nil {
		return err
	}
	res, err := a.lab.client.JobList(ctx, river.NewJobListParams().Kinds(Kind).States(rivertype.JobStateRunning).First(1000))
	if err != nil {
		return err
	}
	for _, j := range res.Jobs {
		if len(j.AttemptedBy) > 0 && live[j.AttemptedBy[len(j.AttemptedBy)-1]] {
			continue
		}
		n, err := a.lab.handBack(ctx, j)
		if err != nil {
			return err
		}
		if n > 0 {
			a.logf("job %d: handed back to its queue: its agent's heartbeat stopped (attempt %d of %d)", j.ID, j.Attempt, j.MaxAttempts)
		}
	}
	return nil
}

// liveClients are the River client ids of the agents whose heartbeat is
// within their lease.
func (l *Lab) liveClients(ctx context.Context) (map[string]bool, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT client_id, seen, lease_ns FROM lab_agents WHERE stopped = 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	live := map[string]bool{}
	now := time.Now().UnixNano()
	for rows.Next() {
		var id string
		var seen, lease int64
		if err := rows.Scan(&id, &seen, &lease); err != nil {
			return nil, err
		}
		if now-seen <= lease {
			live[id] = true
		}
	}
	return live, rows.Err()
}

// handBack makes running job j available again, unless it changed since
// it was read; it returns the rows changed.
func (l *Lab) handBack(ctx context.Context, j *rivertype.JobRow) (int64, error) {
	available, discarded := "'available'", "'discarded'"
	if l.pg {
		available, discarded = "'available'::river_job_state", "'discarded'::river_job_state"
	}
	r, err := l.db.ExecContext(ctx, q(l.pg, `UPDATE river_job SET
		state = CASE WHEN attempt >= max_attempts THEN `+discarded+` ELSE `+available+` END,
		finalized_at = CASE WHEN attempt >= max_attempts THEN attempted_at ELSE NULL END
		WHERE id = ? AND state = 'running' AND attempt = ?`), j.ID, j.Attempt)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}
