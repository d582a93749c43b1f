package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, in pure Go
)

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

func openSQLite(ctx context.Context, path string) (Store, error) {
	return openSQLiteAt(ctx, path, SchemaVersion)
}

// openBusyWait bounds how long opening waits for other kdelta processes
// that hold the database while they create or migrate it.
const openBusyWait = 30 * time.Second

// isBusy tells whether err is SQLite's "database is locked": switching a
// new database to WAL and migrating it take locks that busy_timeout does
// not always wait for.
func isBusy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}

// openSQLiteAt opens the SQLite store at path with its schema at version
// target.
func openSQLiteAt(ctx context.Context, path string, target int64) (Store, error) {
	deadline := time.Now().Add(openBusyWait)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		st, err := openSQLiteOnce(ctx, path, target)
		if !isBusy(err) || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func openSQLiteOnce(ctx context.Context, path string, target int64) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := createSQLite(ctx, path, target); err != nil {
		return nil, err
	}
	if err := checkSQLite(ctx, path); err != nil {
		return nil, err
	}
	// WAL with synchronous=NORMAL keeps every committed transaction across
	// a kill of the process (only a power cut may lose the last ones), and
	// lets `results ls` read while `kdelta run` writes. BEGIN IMMEDIATE
	// takes the write lock up front, so two writers wait for each other
	// (busy_timeout) instead of failing on a lock upgrade.
	q := "_busy_timeout=10000&_foreign_keys=1&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"
	db, err := sql.Open("sqlite", sqliteURI(path)+"?"+q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// One connection: SQLite serialises writers anyway, and a single
	// connection keeps the pragmas and avoids lock contention with itself.
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, diskErr(path, err))
	}
	if err := migrate(ctx, db, false, target); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, diskErr(path, err))
	}
	return &sqlStore{db: db, loc: path}, nil
}

// checkSQLite refuses, before anything writes to it, a file that is not
// an SQLite database, a database that is not a kdelta store, and a store
// whose schema is newer than this kdelta's. A missing or empty file is a
// new store.
func checkSQLite(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	f.Close()
	if n == 0 && (err == io.EOF) {
		return nil
	}
	if !bytes.Equal(head[:n], []byte(sqliteHeader)) {
		return fmt.Errorf("%s: not a kdelta store (not an SQLite database); it was left untouched", path)
	}
	// Read-only, and immutable unless a write-ahead log holds committed
	// transactions that the file does not have yet (a kdelta killed
	// before a checkpoint): an immutable reader creates no -wal or -shm
	// file beside a database it may refuse.
	fi, err := os.Stat(path + "-wal")
	immutable := err != nil || fi.Size() == 0
	err = checkKdelta(ctx, path, immutable)
	if immutable && errors.Is(err, errNotKdelta) {
		// An immutable reader takes no lock: another kdelta may have
		// written (or be checkpointing) since the write-ahead log was
		// looked at, and what it read be torn. Only a reader that locks
		// as SQLite does may call a file not a kdelta store.
		err = checkKdelta(ctx, path, false)
	}
	return err
}

// errNotKdelta is wrapped by the error of an SQLite database with tables
// but none of kdelta's.
var errNotKdelta = errors.New("not a kdelta store")

// checkKdelta reads path read-only (immutable: without locks, -wal or
// -shm) and refuses it unless it is a kdelta store this kdelta knows, or
// an empty database.
func checkKdelta(ctx context.Context, path string, immutable bool) error {
	q := "?mode=ro&_busy_timeout=10000"
	if immutable {
		q += "&immutable=1"
	}
	db, err := sql.Open("sqlite", sqliteURI(path)+q)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer db.Close()
	v, ok, err := appliedVersion(ctx, db, false)
	if err != nil {
		return fmt.Errorf("%s: unreadable SQLite database: %v; it was left untouched", path, err)
	}
	if !ok {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master").Scan(&n); err != nil {
			return fmt.Errorf("%s: unreadable SQLite database: %v; it was left untouched", path, err)
		}
		if n > 0 {
			return fmt.Errorf("%s: an SQLite database that is not a kdelta store; it was left untouched%w", path, quiet{errNotKdelta})
		}
	}
	if v > SchemaVersion {
		return newerSchemaError(path, v)
	}
	return nil
}

// sqliteURI makes a file: URI of path, escaping what SQLite's URI parser
// would read as syntax.
func sqliteURI(path string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(path)
}
