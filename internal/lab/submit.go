package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
)

// SubmitOptions say what to queue and for which agents.
type SubmitOptions struct {
	Store string
	// Job is the command line and the runs it asks for; Select and Agent
	// are filled in.
	Job JobArgs
	// At most one of these: Select queues the job for one live agent
	// with these labels (the one with the fewest jobs waiting); On for
	// the agent so named, running or not; Each for every agent with
	// these labels. With none, any live agent; on an SQLite lab without
	// one, this machine's.
	Select Labels
	On     string
	Each   Labels
	// Host is this machine's agent name ("" for the host name).
	Host string
}

// A Submitted job: its id and the agent it was queued for.
type Submitted struct {
	ID    int64
	Agent string
}

// ownedFlags are the flags of a job that the agent sets itself.
var ownedFlags = []string{"--store", "--no-store", "-o", "--output"}

// CheckJob refuses, before anything is queued, a job the agent cannot
// run as given.
func CheckJob(j JobArgs) error {
	if !slices.Contains(Commands, j.Command) {
		return fmt.Errorf("submit: %q is not a command a job runs (%s)", j.Command, strings.Join(Commands, ", "))
	}
	for _, a := range j.Args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(ownedFlags, name) {
			return fmt.Errorf("submit: %s in the job: the agent records its runs in the lab's store", name)
		}
	}
	if err := checkBoot(j); err != nil {
		return err
	}
	if j.Command == "stat" && !slices.Contains(j.Args, "--") {
		return errors.New("submit: stat: put the command after -- (kdelta submit -- stat -r N -- CMD ARGS)")
	}
	return nil
}

// Submit queues the job and returns what was queued.
func Submit(ctx context.Context, o SubmitOptions) ([]Submitted, error) {
	if err := CheckJob(o.Job); err != nil {
		return nil, err
	}
	given := 0
	for _, g := range []bool{len(o.Select) > 0, o.On != "", len(o.Each) > 0} {
		if g {
			given++
		}
	}
	if given > 1 {
		return nil, errors.New("submit: give one of --select, --on and --each")
	}
	l, err := open(ctx, o.Store, false, nil)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	agents, err := l.Agents(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.loc, err)
	}
	targets, err := l.targets(ctx, o, agents)
	if err != nil {
		return nil, err
	}
	sel := o.Select.String()
	if len(o.Each) > 0 {
		sel = o.Each.String()
	}
	var params []river.InsertManyParams
	for _, t := range targets {
		j := o.Job
		j.Select, j.Agent = sel, t.Name
		params = append(params, river.InsertManyParams{Args: j, InsertOpts: &river.InsertOpts{Queue: t.Queue, MaxAttempts: 10}})
	}
	res, err := l.client.InsertMany(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.loc, err)
	}
	out := make([]Submitted, len(res))
	for i, r := range res {
		out[i] = Submitted{ID: r.Job.ID, Agent: targets[i].Name}
	}
	return out, nil
}

// targets are the agents the job goes to.
func (l *Lab) targets(ctx context.Context, o SubmitOptions, agents []AgentInfo) ([]AgentInfo, error) {
	now := time.Now()
	switch {
	case o.On != "":
		if err := checkName(o.On); err != nil {
			return nil, fmt.Errorf("--on: %q is not an agent name", o.On)
		}
		for _, a := range agents {
			if a.Name == o.On {
				return []AgentInfo{a}, nil
			}
		}
		return []AgentInfo{{Name: o.On, Queue: queueOf(o.On)}}, nil
	case len(o.Each) > 0:
		var out []AgentInfo
		for _, a := range agents {
			if a.Labels.Match(o.Each) {
				out = append(out, a)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("--each %s: no agent of the lab has these labels (kdelta agents ls)", o.Each)
		}
		return out, nil
	}
	var best *AgentInfo
	bestN := 0
	for i, a := range agents {
		if !a.Live(now) || !a.Labels.Match(o.Select) {
			continue
		}
		n, err := l.pending(ctx, a.Queue)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.loc, err)
		}
		if best == nil || n < bestN {
			best, bestN = &agents[i], n
		}
	}
	switch {
	case best != nil:
		return []AgentInfo{*best}, nil
	case len(o.Select) > 0:
		return nil, fmt.Errorf("--select %s: no live agent has these labels (kdelta agents ls; --on NAME queues for an agent that is not running)", o.Select)
	case l.pg:
		return nil, errors.New("submit: no live agent in the lab (kdelta agents ls; --on NAME queues for an agent that is not running)")
	}
	host := o.Host
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("submit: %w (give --on NAME)", err)
		}
		host = h
	}
	return []AgentInfo{{Name: host, Queue: queueOf(host)}}, nil
}
