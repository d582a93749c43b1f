package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
)

// AgentOptions say how an agent runs.
type AgentOptions struct {
	// Store is the lab's database ("" for the SQLite store's default).
	Store string
	// Name is the agent's, unique in the lab (default: the host name).
	Name string
	// Labels are matched by submit's --select and --each; host, arch and
	// cpus are added unless given.
	Labels Labels
	// Once stops the agent when no job is queued for it and none runs.
	Once bool
	// Lease is how long the agent's heartbeat may go missing before the
	// other agents hand its running job back (default DefaultLease). They
	// judge it by their own clocks: a lab's machines keep time (NTP) to
	// well within a lease.
	Lease time.Duration
	// Exe is the kdelta binary that runs each job (default: this one).
	Exe string
	// Log takes one line per job started, finished or handed back, and
	// the warnings.
	Log io.Writer
	// Root is where the machine's /proc is read from ("" for /): the
	// heartbeat's kernel, boot id and load, and a boot step's check of
	// the kernel that came up.
	Root string
	// Reboot is how a boot step (a job with --kexec) reboots: RebootKexec
	// ("" too) loads the kernel and reboots into it; RebootExit loads
	// nothing and exits the agent where it would reboot, so that
	// whoever starts it again plays the machine that booted (with Root,
	// the kernel it came up in): for tests, and trials of a lab.
	Reboot string
}

// DefaultLease is an agent's lease unless told otherwise.
const DefaultLease = 30 * time.Second

// An agent is one running kdelta agent.
type agent struct {
	opt    AgentOptions
	lab    *Lab
	queue  string
	start  time.Time
	id     string       // River's client id
	job    atomic.Int64 // the job running, 0 for none
	drain  chan struct{}
	logMu  sync.Mutex
	dbOK   atomic.Int64 // Unix ns since which the database answered every call
	closed chan struct{}
}

// RunAgent runs an agent until ctx is cancelled (SIGTERM: it finishes the
// run under way, hands its job back and stops) or, with Once, until no job
// is left for it.
func RunAgent(ctx context.Context, opt AgentOptions) error {
	if opt.Name == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("agent: %w (give --name)", err)
		}
		opt.Name = h
	}
	if err := checkName(opt.Name); err != nil {
		return err
	}
	if opt.Reboot != "" && opt.Reboot != RebootKexec && opt.Reboot != RebootExit {
		return fmt.Errorf("--reboot: %q is not kexec or exit", opt.Reboot)
	}
	if opt.Lease <= 0 {
		opt.Lease = DefaultLease
	}
	if opt.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		opt.Exe = exe
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Labels == nil {
		opt.Labels = Labels{}
	}
	for k, v := range map[string]string{"host": opt.Name, "arch": runtime.GOARCH, "cpus": strconv.Itoa(runtime.NumCPU())} {
		if _, ok := opt.Labels[k]; !ok {
			opt.Labels[k] = v
		}
	}
	a := &agent{opt: opt, queue: queueOf(opt.Name), start: time.Now(), drain: make(chan struct{}), closed: make(chan struct{})}
	a.dbOK.Store(a.start.UnixNano())
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{a: a})
	id := a.queue + "_" + strconv.FormatInt(a.start.UnixNano(), 36)
	a.id = id
	cfg := &river.Config{
		ID:      id,
		Queues:  map[string]river.QueueConfig{a.queue: {MaxWorkers: 1}},
		Workers: workers,
		// A measurement has its own timeouts (kdelta run --timeout);
		// the lease, not River's rescuer, finds the jobs of a dead agent.
		JobTimeout:           -1,
		RescueStuckJobsAfter: 7 * 24 * time.Hour,
		FetchCooldown:        5 * time.Millisecond,
		FetchPollInterval:    200 * time.Millisecond,
		MaxAttempts:          10,
		Logger:               slog.New(slog.NewTextHandler(&lineLog{a: a}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	l, err := a.connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer l.Close()
	a.lab = l
	// The heartbeat names the client before it fetches anything, so that
	// no other agent takes this one's first job for a dead agent's.
	if err := a.firstBeat(ctx, id); err != nil {
		return fmt.Errorf("%s: %w", l.loc, err)
	}
	if err := a.retry(ctx, "resuming boots", transient, func() error { return a.resumeBoots(ctx) }); err != nil {
		return fmt.Errorf("%s: %w", l.loc, err)
	}
	runCtx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBeat()
	go a.beatLoop(runCtx, id)
	go a.reapLoop(runCtx)
	a.logf("agent %s: queue %s, labels %s, lease %s, on %s", opt.Name, a.queue, opt.Labels, opt.Lease, l.loc)
	// River's work contexts must outlive the signal: the run under way
	// finishes and the job is handed back by the worker itself.
	if err := a.startClient(runCtx); err != nil {
		return err
	}
	idle := make(chan struct{})
	if opt.Once {
		go a.watchIdle(runCtx, idle)
	}
	select {
	case <-ctx.Done():
		close(a.drain)
	case <-idle:
	}
	err = l.client.Stop(context.WithoutCancel(ctx))
	stopBeat()
	a.stopped(context.WithoutCancel(ctx))
	return err
}

// connect opens the lab, trying again with backoff while the database
// does not answer: an agent started with its machine may come up before
// the lab's database, or while it restarts.
func (a *agent) connect(ctx context.Context, cfg *river.Config) (*Lab, error) {
	var l *Lab
	down := func(err error) bool { var u unreachable; return errors.As(err, &u) }
	err := a.retry(ctx, "connecting", down, func() (err error) {
		l, err = open(ctx, a.opt.Store, false, cfg)
		return err
	})
	return l, err
}

// firstBeat writes the agent's first heartbeat, trying again while the
// database does not answer (it may restart as the agent starts).
func (a *agent) firstBeat(ctx context.Context, id string) error {
	return a.retry(ctx, "heartbeat", transient, func() error { return a.beat(ctx, id) })
}

// startClient starts River's client, trying again after any failure (River
// listens for new jobs as it starts, and fails while the database does
// not answer).
func (a *agent) startClient(ctx context.Context) error {
	err := a.retry(ctx, "starting", func(error) bool { a.dbFailed(); return true }, func() error { return a.lab.client.Start(ctx) })
	if err != nil {
		return fmt.Errorf("%s: %w", a.lab.loc, err)
	}
	return nil
}

// retry calls f until it succeeds, fails with an error for which again
// says no, or ctx ends. It waits 100 ms after the first failure and twice
// as long after each next one, up to 5 s, and logs each failure. Every step of the agent's start
// that talks to the database goes through it: the database may restart
// at any of them, and an agent that exits then leaves its jobs to wait
// for someone to start it again.
func (a *agent) retry(ctx context.Context, what string, again func(error) bool, f func() error) error {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := f()
		if err == nil || !again(err) {
			return err
		}
		a.logf("%s: %v (trying again in %s)", what, err, wait)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// logf writes one line of the agent's log.
func (a *agent) logf(format string, args ...any) {
	a.logMu.Lock()
	defer a.logMu.Unlock()
	fmt.Fprintf(a.opt.Log, "kdelta agent: "+format+"\n", args...)
}

// lineLog passes River's log lines on to the agent's log.
type lineLog struct{ a *agent }

func (w *lineLog) Write(p []byte) (int, error) {
	w.a.logf("river: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}

// dbFailed notes that the database did not answer, which holds the reaper
// back: an agent that could not see the database cannot tell a dead agent
// from its own outage.
func (a *agent) dbFailed() { a.dbOK.Store(time.Now().UnixNano()) }

// running notes job id (0: none) as the one the agent runs, and says so at
// once in its heartbeat.
func (a *agent) running(ctx context.Context, id int64) {
	a.job.Store(id)
	if err := a.beat(ctx, a.id); err != nil {
		a.dbFailed()
	}
}

// beat writes the agent's heartbeat: who it is, what it runs on and the
// job it runs.
func (a *agent) beat(ctx context.Context, clientID string) error {
	now := time.Now().UnixNano()
	l := a.lab
	_, err := l.db.ExecContext(ctx, q(l.pg, `INSERT INTO lab_agents
		(name, client_id, queue, labels, kernel, boot_id, load, job_id, lease_ns, started, seen, stopped)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
		ON CONFLICT (name) DO UPDATE SET client_id = excluded.client_id, queue = excluded.queue,
			labels = excluded.labels, kernel = excluded.kernel, boot_id = excluded.boot_id,
			load = excluded.load, job_id = excluded.job_id, lease_ns = excluded.lease_ns,
			started = excluded.started, seen = excluded.seen, stopped = 0`),
		a.opt.Name, clientID, a.queue, a.opt.Labels.String(), readLine(a.opt.Root, "proc/sys/kernel/osrelease"),
		readLine(a.opt.Root, "proc/sys/kernel/random/boot_id"), loadAverage(a.opt.Root), a.job.Load(),
		int64(a.opt.Lease), a.start.UnixNano(), now)
	return err
}

func (a *agent) beatLoop(ctx context.Context, clientID string) {
	t := time.NewTicker(a.opt.Lease / 4)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := a.beat(ctx, clientID)
		switch {
		case err != nil && ctx.Err() == nil:
			a.dbFailed()
			if !failing {
				a.logf("heartbeat: %v (trying again every %s)", err, a.opt.Lease/4)
			}
			failing = true
		case err == nil && failing:
			a.logf("heartbeat: the database answers again")
			failing = false
		}
	}
}

// stopped marks the agent as stopped on purpose.
func (a *agent) stopped(ctx context.Context) {
	l := a.lab
	l.db.ExecContext(ctx, q(l.pg, "UPDATE lab_agents SET stopped = 1, job_id = 0, seen = ? WHERE name = ?"), time.Now().UnixNano(), a.opt.Name)
}

// watchIdle closes idle when no job is queued for the agent and none
// runs: kdelta agent --once.
func (a *agent) watchIdle(ctx context.Context, idle chan<- struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if a.job.Load() != 0 {
			continue
		}
		n, err := a.lab.pending(ctx, a.queue)
		if err != nil {
			a.dbFailed()
			continue
		}
		if n == 0 {
			close(idle)
			return
		}
	}
}

// pending counts the jobs of queue that are not finished.
func (l *Lab) pending(ctx context.Context, queue string) (int, error) {
	var n int
	err := l.db.QueryRowContext(ctx, q(l.pg, `SELECT COUNT(*) FROM river_job
		WHERE queue = ? AND state IN ('available', 'running')`), queue).Scan(&n)
	return n, err
}

// readLine reads the first line of root/path, "" when it cannot.
func readLine(root, path string) string {
	if root == "" {
		root = "/"
	}
	b, err := os.ReadFile(root + "/" + path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// loadAverage is the one-minute load average of /proc/loadavg.
func loadAverage(root string) float64 {
	f := strings.Fields(readLine(root, "proc/loadavg"))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

var errDrained = errors.New("handed back")
