// Package lab runs kdelta over a lab of machines: an agent on each
// machine under test pulls jobs (a kdelta run, ab or stat session) from a
// queue of its own and writes every run to the store as it finishes;
// submitters queue jobs for the agents whose labels match; anyone with
// read access lists jobs and agents.
//
// The queue is River (github.com/riverqueue/river), a job engine on the
// database the store already uses: SQLite through riversqlite, so that one
// machine can queue a night of work for itself, or PostgreSQL through
// riverpgxv5 for a lab. River delivers a job at least once; every run is
// stored under one idempotency key (job, cell, benchmark, warm-up, run
// index), so a job run again resumes from the runs already stored and
// never stores one twice, and a job's result sets are inserted in the
// transaction that completes it (river.JobCompleteTx).
//
// An agent's heartbeat is its lease: a job whose agent stopped beating
// for longer than the lease (killed, or its machine gone) is handed back
// to its queue by the other agents, or by the agent itself when it starts
// again.
package lab

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/kdelta/kdelta/internal/store"
)

// The lab's own tables, beside River's and the store's, in plain SQL that
// both databases accept.
//
//go:embed migrations/*.sql
var migrations embed.FS

// versionTable is goose's record of the lab's migrations, apart from the
// store's.
const versionTable = "kdelta_lab_version"

// engine is what the lab asks of a River client, whichever its driver.
type engine interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	ID() string
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobRetry(ctx context.Context, id int64) (*rivertype.JobRow, error)
}

// A Lab is an open connection to a lab's database: River's client on it
// and the lab's and the store's tables.
type Lab struct {
	loc    string // in messages: a path, or the URL without its password
	pg     bool
	db     *sql.DB
	pool   *pgxpool.Pool // PostgreSQL: River's pool, which db shares
	client engine
	// complete runs f, completes job and queues the jobs of next (a
	// boot step's measuring step) in one transaction.
	complete func(ctx context.Context, job *river.Job[JobArgs], f func(store.Execer) error, next []river.InsertManyParams) error
}

// Close closes the client's connections.
func (l *Lab) Close() error {
	err := l.db.Close()
	if l.pool != nil {
		l.pool.Close()
	}
	return err
}

// open opens the lab at loc (a postgres:// URL, else an SQLite path, ""
// for the store's default) with River configured by cfg (nil: a client
// that only inserts and reads). An SQLite lab is created and upgraded as
// needed; a PostgreSQL lab is created only by Init (migrate), so that
// agents and submitters need no right to change the schema.
func open(ctx context.Context, loc string, migrate bool, cfg *river.Config) (*Lab, error) {
	if cfg == nil {
		cfg = &river.Config{}
	}
	if store.IsPostgres(loc) {
		return openPostgres(ctx, loc, migrate, cfg)
	}
	return openSQLite(ctx, loc, cfg)
}

func openSQLite(ctx context.Context, loc string, cfg *river.Config) (*Lab, error) {
	if loc == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return nil, err
		}
		loc = p
	}
	// The store's own open creates and upgrades its tables, and refuses a
	// file that is not a kdelta store before River writes to it.
	st, err := store.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	st.Close()
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	db, err := sql.Open("sqlite", "file:"+r.Replace(loc)+"?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	// River's SQLite driver wants one connection: SQLite runs one writer
	// at a time, and River's services would otherwise fail on each other's
	// locks.
	db.SetMaxOpenConns(1)
	l := &Lab{loc: loc, db: db}
	driver := riversqlite.New(db)
	if err := retryBusy(ctx, func() error { return migrateLab(ctx, l, driver) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	c, err := river.NewClient(driver, cfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	l.client = c
	l.complete = func(ctx context.Context, job *river.Job[JobArgs], f func(store.Execer) error, next []river.InsertManyParams) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := f(tx); err != nil {
			return err
		}
		done, err := river.JobCompleteTx[*riversqlite.Driver](ctx, tx, job)
		if err != nil {
			return err
		}
		if err := completed(done.JobRow); err != nil {
			return err
		}
		if len(next) > 0 {
			if _, err := c.InsertManyTx(ctx, tx, next); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	return l, nil
}

// retryBusy runs f again while several kdelta processes opening one new
// SQLite lab at once trip over each other's migrations: each migration is
// a transaction, so the losers changed nothing and find less to do.
func retryBusy(ctx context.Context, f func() error) error {
	var err error
	for try := 0; try < 8; try++ {
		if err = f(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(10<<try) * time.Millisecond):
		}
	}
	return err
}

func openPostgres(ctx context.Context, loc string, migrate bool, cfg *river.Config) (*Lab, error) {
	name := Redact(loc)
	pc, err := pgxpool.ParseConfig(loc)
	if err != nil {
		// pgx's message may quote the URL: say only what is wrong.
		return nil, fmt.Errorf("%s: not a PostgreSQL URL pgx can use", name)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	db := stdlib.OpenDBFromPool(pool)
	l := &Lab{loc: name, pg: true, db: db, pool: pool}
	fail := func(err error) (*Lab, error) {
		db.Close()
		pool.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := pool.Ping(ctx); err != nil {
		if transient(err) {
			err = unreachable{err}
		}
		return fail(err)
	}
	driver := riverpgxv5.New(pool)
	if migrate {
		st, err := store.Open(ctx, loc)
		if err != nil {
			db.Close()
			pool.Close()
			return nil, err
		}
		st.Close()
		if err := migrateLab(ctx, l, driver); err != nil {
			return fail(err)
		}
	} else if err := l.check(ctx); err != nil {
		return fail(err)
	}
	c, err := river.NewClient(driver, cfg)
	if err != nil {
		return fail(err)
	}
	l.client = c
	l.complete = func(ctx context.Context, job *river.Job[JobArgs], f func(store.Execer) error, next []river.InsertManyParams) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		if err := f(pgxExecer{tx}); err != nil {
			return err
		}
		done, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		if err != nil {
			return err
		}
		if err := completed(done.JobRow); err != nil {
			return err
		}
		if len(next) > 0 {
			if _, err := c.InsertManyTx(ctx, tx, next); err != nil {
				return err
			}
		}
		return tx.Commit(ctx)
	}
	return l, nil
}

// unreachable is the error of a database that did not answer.
type unreachable struct{ err error }

func (u unreachable) Error() string { return u.err.Error() }
func (u unreachable) Unwrap() error { return u.err }

// check makes sure a PostgreSQL database was made a lab by Init.
func (l *Lab) check(ctx context.Context) error {
	var reg sql.NullString
	if err := l.db.QueryRowContext(ctx, "SELECT to_regclass($1)::text", versionTable).Scan(&reg); err != nil {
		if transient(err) {
			err = unreachable{err}
		}
		return err
	}
	if !reg.Valid {
		return errors.New("not a kdelta lab yet: run kdelta lab init --store URL (as the database's owner) first")
	}
	return nil
}

// migrate creates or upgrades River's tables (rivermigrate) and the lab's
// (goose, as the store does its own).
func migrateLab[TTx any](ctx context.Context, l *Lab, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, nil)
	if err == nil {
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	}
	if err != nil {
		return fmt.Errorf("the job queue's tables (River): %w", err)
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithTableName(versionTable)}
	if l.pg {
		dialect = goose.DialectPostgres
		// The lab's own advisory lock ("kdlab" in ASCII), apart from the
		// store's.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(0x6b646c6162), lock.WithLockTimeout(1, 300))
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, l.db, sub, opts...)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("the lab's tables: %w", err)
	}
	return nil
}

// Redact drops the password from a database URL for messages, logs and
// rows; a path is returned as it is.
func Redact(loc string) string {
	if !store.IsPostgres(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "postgres lab"
	}
	return u.Redacted()
}

// pgxExecer runs the store's statements in a pgx transaction.
type pgxExecer struct{ tx pgx.Tx }

func (e pgxExecer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	tag, err := e.tx.Exec(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return driver.RowsAffected(tag.RowsAffected()), nil
}

// q rewrites the ? placeholders of query as $1, $2... for PostgreSQL
// (store.Rebind).
func q(pg bool, query string) string { return store.Rebind(pg, query) }
