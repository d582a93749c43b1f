package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
	"github.com/kdelta/kdelta/internal/sys"
)

// worker is River's worker of lab jobs on an agent.
type worker struct {
	river.WorkerDefaults[JobArgs]
	a *agent
}

// Work runs one job: kdelta itself, as a child, with its result sets
// written to files that are read after every run and stored run by run;
// the job completes, with its sets recorded, in one transaction.
func (w *worker) Work(ctx context.Context, job *river.Job[JobArgs]) error {
	a := w.a
	started := time.Now()
	a.running(ctx, job.ID)
	defer a.running(context.WithoutCancel(ctx), 0)
	args := job.Args
	if args.Boot != nil {
		return a.bootStep(ctx, job, started)
	}
	if args.Booted != nil {
		if err := a.checkBooted(args.Booted); err != nil {
			a.logf("job %d: %v", job.ID, err)
			return river.JobCancel(err)
		}
	}
	if args.Command == "noop" {
		return a.finish(ctx, job, started)
	}
	st, err := a.lab.stored(ctx, job.ID)
	if err != nil {
		a.dbFailed()
		return err
	}
	done := st.done()
	// A vm job (no Runs) stored its sets only when all its boots were
	// done.
	if !args.Until && len(st.sets) > 0 && done >= args.Runs {
		a.logf("job %d: its %d runs were stored by an earlier attempt", job.ID, done)
		return a.finish(ctx, job, started)
	}
	if done > 0 {
		a.logf("job %d: resuming after %d stored runs (attempt %d)", job.ID, done, job.Attempt)
	} else {
		a.logf("job %d: kdelta %s (attempt %d)", job.ID, args.CommandLine(), job.Attempt)
	}
	dir, err := os.MkdirTemp("", "kdelta-lab-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m := &measure{a: a, job: job, st: st, dir: dir, offset: done}
	code, err := m.run(ctx, childArgs(args, dir, job.ID, max(args.Runs-done, 1)))
	switch {
	case errors.Is(err, errDrained):
		a.logf("job %d: handed back after its run under way (%d runs stored)", job.ID, m.st.done())
		return river.JobSnooze(0)
	case err != nil:
		return err
	case code == 2:
		return river.JobCancel(fmt.Errorf("kdelta %s: %s", args.CommandLine(), m.tail()))
	case code != 0 && code != 1:
		return fmt.Errorf("kdelta %s: exit status %d: %s", args.CommandLine(), code, m.tail())
	}
	return a.finish(ctx, job, started)
}

// childArgs is the job's command line for the child: the runs still to
// do, the sets written under dir, nothing recorded by the child itself,
// and the job named in the sets' labels. The flags go before any "--",
// after the job's own, so that they override them.
func childArgs(a JobArgs, dir string, id int64, repeat int) []string {
	extra := []string{"--no-store", "-o", filepath.Join(dir, "set"), "--label", "lab.job=" + strconv.FormatInt(id, 10), "-r", strconv.Itoa(repeat)}
	if a.Command == "vm" {
		// kdelta vm writes one set per variant into the directory; its
		// runs are the job's own, after its --.
		extra = []string{"--no-store", "-o", dir, "--label", "lab.job=" + strconv.FormatInt(id, 10)}
	}
	args := append([]string{a.Command}, a.Args...)
	at := len(args)
	for i, s := range args {
		if s == "--" {
			at = i
			break
		}
	}
	return append(append(append([]string{}, args[:at]...), extra...), args[at:]...)
}

// A runKey is a run's idempotency key within its job.
type runKey struct {
	cell  string
	bench int
	warm  bool
	run   int
}

// stored is what a job has stored: the result set of each cell without
// its runs, and the keys of its runs.
type stored struct {
	sets     map[string]*result.Set
	keys     map[runKey]bool
	measured map[[2]string]int // cell, bench → measured runs
}

// done is the measured runs that every benchmark of every cell has.
func (s *stored) done() int {
	n := -1
	for cell, set := range s.sets {
		for bi, b := range set.Benchmarks {
			if b.Skipped != "" {
				continue
			}
			c := s.measured[[2]string{cell, strconv.Itoa(bi)}]
			if n < 0 || c < n {
				n = c
			}
		}
	}
	return max(n, 0)
}

func (s *stored) add(k runKey) {
	s.keys[k] = true
	if !k.warm {
		s.measured[[2]string{k.cell, strconv.Itoa(k.bench)}]++
	}
}

// stored reads what job id stored.
func (l *Lab) stored(ctx context.Context, id int64) (*stored, error) {
	st := &stored{sets: map[string]*result.Set{}, keys: map[runKey]bool{}, measured: map[[2]string]int{}}
	rows, err := l.db.QueryContext(ctx, q(l.pg, "SELECT cell, body FROM lab_sets WHERE job_id = ?"), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var cell, body string
		if err := rows.Scan(&cell, &body); err != nil {
			return nil, err
		}
		set, err := result.Decode(fmt.Sprintf("job %d cell %q", id, cell), []byte(body))
		if err != nil {
			return nil, err
		}
		st.sets[cell] = set
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	runs, err := l.db.QueryContext(ctx, q(l.pg, "SELECT cell, bench, warmup, run FROM lab_runs WHERE job_id = ?"), id)
	if err != nil {
		return nil, err
	}
	defer runs.Close()
	for runs.Next() {
		var k runKey
		var warm int
		if err := runs.Scan(&k.cell, &k.bench, &warm, &k.run); err != nil {
			return nil, err
		}
		k.warm = warm != 0
		st.add(k)
	}
	return st, runs.Err()
}

// A measure is one attempt at a job: the child and what it wrote.
type measure struct {
	a      *agent
	job    *river.Job[JobArgs]
	st     *stored
	dir    string
	offset int // measured runs stored before this attempt, per benchmark
	stderr bytes.Buffer
	failed bool // the last store failed (logged once)
}

// run runs the child until it exits, storing its runs as they appear.
// On the agent's drain it lets the run under way finish, then interrupts
// the child and returns errDrained.
func (m *measure) run(ctx context.Context, args []string) (int, error) {
	cmd := exec.Command(m.a.opt.Exe, args...)
	for _, e := range os.Environ() {
		// The child records nothing itself and must not learn the
		// lab's URL: it is not in its environment, its command line or
		// its sets.
		if !strings.HasPrefix(e, "KDELTA_STORE=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Stderr = &limited{b: &m.stderr, n: 64 << 10}
	sys.SetParentDeathSignal(cmd, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	drain, atDrain, interrupted := m.a.drain, -1, false
	for {
		select {
		case err := <-exited:
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				return 0, err
			}
			if err := m.flush(ctx); err != nil {
				return 0, err
			}
			if interrupted {
				return code, errDrained
			}
			return code, nil
		case <-t.C:
			m.collect(ctx)
		case <-drain:
			drain, atDrain = nil, len(m.st.keys)
		case <-ctx.Done():
			// Cancelled: interrupted, the child puts its knobs back and
			// saves what it measured; killed if it does not stop.
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			m.collect(context.WithoutCancel(ctx))
			return 0, ctx.Err()
		}
		if atDrain >= 0 && !interrupted && len(m.st.keys) > atDrain {
			cmd.Process.Signal(os.Interrupt)
			interrupted = true
		}
	}
}

// flush stores what the child wrote, trying again with backoff while the
// database does not answer (a restart): nothing measured is dropped.
func (m *measure) flush(ctx context.Context) error {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		if m.collect(ctx) == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// collect stores the cells and runs the child's files hold that are not
// stored yet.
func (m *measure) collect(ctx context.Context) error {
	ents, err := os.ReadDir(m.dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() {
			continue // not yet renamed into place
		}
		set, err := result.Load(filepath.Join(m.dir, name))
		if err != nil {
			continue
		}
		// set, set-VARIANT.json (run, ab, stat) or VARIANT-RELEASE.json
		// (vm): the cell is the variant.
		cell := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(name, "set"), ".json"), "-")
		if err := m.store(ctx, cell, set); err != nil {
			m.a.dbFailed()
			if !m.failed {
				m.a.logf("job %d: storing runs: %v (kept, trying again)", m.job.ID, err)
			}
			m.failed = true
			return err
		}
	}
	if m.failed {
		m.a.logf("job %d: stored the runs kept", m.job.ID)
		m.failed = false
	}
	return nil
}

// store inserts cell's set, without its runs, unless an earlier attempt
// did, and each run not stored yet under its key.
func (m *measure) store(ctx context.Context, cell string, set *result.Set) error {
	l, id := m.a.lab, m.job.ID
	if _, ok := m.st.sets[cell]; !ok {
		skel := *set
		skel.Complete = false
		skel.Benchmarks = nil
		for _, b := range set.Benchmarks {
			nb := *b
			nb.Runs = nil
			skel.Benchmarks = append(skel.Benchmarks, &nb)
		}
		body, err := json.Marshal(&skel)
		if err != nil {
			return err
		}
		if _, err := l.db.ExecContext(ctx, q(l.pg, `INSERT INTO lab_sets (job_id, cell, set_id, body) VALUES (?, ?, ?, ?)
			ON CONFLICT (job_id, cell) DO NOTHING`), id, cell, set.ID, string(body)); err != nil {
			return err
		}
		m.st.sets[cell] = &skel
	}
	for bi, b := range set.Benchmarks {
		for _, r := range b.Runs {
			if r.Status == result.StatusInterrupted || r.Status == result.StatusSkipped {
				continue
			}
			k := runKey{cell: cell, bench: bi, warm: r.Warmup, run: r.Index}
			if !r.Warmup {
				k.run += m.offset
			}
			if m.st.keys[k] || (!k.warm && !m.job.Args.Until && m.job.Args.Runs > 0 && k.run >= m.job.Args.Runs) {
				continue
			}
			rr := *r
			rr.Index = k.run
			body, err := json.Marshal(&rr)
			if err != nil {
				return err
			}
			if _, err := l.db.ExecContext(ctx, q(l.pg, `INSERT INTO lab_runs (job_id, cell, bench, warmup, run, attempt, agent, start, body)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, cell, bench, warmup, run) DO NOTHING`),
				id, cell, bi, boolInt(k.warm), k.run, m.job.Attempt, m.a.opt.Name, r.Start.UnixNano(), string(body)); err != nil {
				return err
			}
			m.st.add(k)
		}
	}
	return nil
}

// tail is the last line the child wrote to stderr.
func (m *measure) tail() string {
	lines := strings.Split(strings.TrimSpace(m.stderr.String()), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "kdelta: ")
}

// limited keeps the first n bytes written to it.
type limited struct {
	b *bytes.Buffer
	n int
}

func (w *limited) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// finish completes job in one transaction with what it measured: its
// result sets, whole, and the attempt's times, and queues the jobs of
// next (a boot step's measuring step). It tries again with
// backoff while the database does not answer.
func (a *agent) finish(ctx context.Context, job *river.Job[JobArgs], started time.Time, next ...river.InsertManyParams) error {
	again := func(err error) bool {
		if ctx.Err() != nil || !transient(err) {
			return false
		}
		a.dbFailed()
		return true
	}
	return a.retry(ctx, fmt.Sprintf("job %d: completing", job.ID), again, func() error { return a.complete(ctx, job, started, next) })
}

var errNotRunning = errors.New("the job was handed back while it ran")

// transient tells whether err may go away by itself: the database did not
// answer, restarts, or is locked by another writer (SQLite); not a
// statement it refused.
func transient(err error) bool {
	if errors.Is(err, errNotRunning) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		class := pe.Code[:2]
		return class == "08" || class == "57" || class == "53" || class == "40"
	}
	msg := err.Error()
	if strings.Contains(msg, "SQLITE") || strings.Contains(msg, "sqlite") || strings.Contains(msg, "constraint") {
		return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
	}
	return true
}

func (a *agent) complete(ctx context.Context, job *river.Job[JobArgs], started time.Time, next []river.InsertManyParams) error {
	l := a.lab
	sets, err := l.sets(ctx, job.ID)
	if err != nil {
		return err
	}
	claimed := started
	if job.AttemptedAt != nil {
		claimed = *job.AttemptedAt
	}
	finished := time.Now()
	err = l.complete(ctx, job, func(tx store.Execer) error {
		for _, s := range sets {
			if err := store.InsertTx(ctx, tx, l.pg, s); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, q(l.pg, `INSERT INTO lab_attempts (job_id, attempt, agent, claimed, started, finished)
			VALUES (?, ?, ?, ?, ?, ?)`), job.ID, job.Attempt, a.opt.Name, claimed.UnixNano(), started.UnixNano(), finished.UnixNano())
		return err
	}, next)
	if err != nil {
		return err
	}
	n := 0
	for _, s := range sets {
		for _, b := range s.Benchmarks {
			n += len(b.Measured())
		}
	}
	if job.Args.Command != "noop" && job.Args.Boot == nil {
		a.logf("job %d: done, %d measured runs in %d result sets", job.ID, n, len(sets))
	}
	return nil
}

// sets are job id's result sets, whole: each cell's set with its stored
// runs in the order they started.
func (l *Lab) sets(ctx context.Context, id int64) ([]*result.Set, error) {
	st, err := l.stored(ctx, id)
	if err != nil || len(st.sets) == 0 {
		return nil, err
	}
	rows, err := l.db.QueryContext(ctx, q(l.pg, "SELECT cell, bench, body FROM lab_runs WHERE job_id = ? ORDER BY start, warmup DESC, run"), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var cell, body string
		var bench int
		if err := rows.Scan(&cell, &bench, &body); err != nil {
			return nil, err
		}
		set := st.sets[cell]
		if set == nil || bench >= len(set.Benchmarks) {
			return nil, fmt.Errorf("job %d: a run of cell %q benchmark %d without its set", id, cell, bench)
		}
		var r result.Run
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return nil, fmt.Errorf("job %d: %w", id, err)
		}
		set.Benchmarks[bench].Runs = append(set.Benchmarks[bench].Runs, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	cells := make([]string, 0, len(st.sets))
	for c := range st.sets {
		cells = append(cells, c)
	}
	sort.Strings(cells)
	var out []*result.Set
	for _, c := range cells {
		st.sets[c].Complete = true
		out = append(out, st.sets[c])
	}
	return out, nil
}

// completed checks that JobCompleteTx completed the job: on a job handed
// back meanwhile it changes nothing and says nothing.
func completed(row *rivertype.JobRow) error {
	if row.State != rivertype.JobStateCompleted {
		return errNotRunning
	}
	return nil
}
