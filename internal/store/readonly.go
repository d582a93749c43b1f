package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
)

// OpenReadOnly opens the store at loc (as Open names it) for the commands
// that only read it (results ls, show, compare, explain, history, serve):
// an SQLite store is opened read-only and never created, upgraded or
// written, so a user who may read a root-owned store but not write it, or
// a store on a read-only mount, can read it. A store whose schema is older
// than this kdelta's is refused with what upgrades it. A PostgreSQL store
// is opened as Open does.
func OpenReadOnly(ctx context.Context, loc string) (Store, error) {
	// The readers refuse another scheme as the writers do, never naming
	// the URL (which may hold a password).
	if err := CheckLocation(loc); err != nil {
		return nil, err
	}
	if IsPostgres(loc) {
		return openPostgres(ctx, loc)
	}
	if loc == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		loc = p
	}
	if err := checkSQLite(ctx, loc); err != nil {
		return nil, err
	}
	// A reader that takes SQLite's locks (through the -shm file beside
	// the store) sees what a writer commits meanwhile, which serve needs.
	// Where the -shm file cannot be made (a directory the reader may not
	// write, a read-only mount) and no write-ahead log is there, nothing
	// has written the store since its last writer closed it, and an
	// immutable reader needs no file beside it.
	db, v, ok, err := openRO(ctx, loc, false)
	if err != nil {
		if fi, serr := os.Stat(loc + "-wal"); serr != nil || fi.Size() == 0 {
			db, v, ok, err = openRO(ctx, loc, true)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the store: %w", loc, err)
	}
	if !ok || v < SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("%s: the store's schema (version %d) is older than this kdelta's (%d): a command that records (kdelta run, import) upgrades it, as a user who may write it", loc, v, SchemaVersion)
	}
	return &sqlStore{db: db, loc: loc}, nil
}

// openRO opens the SQLite database at loc read-only and reads its schema
// version.
func openRO(ctx context.Context, loc string, immutable bool) (*sql.DB, int64, bool, error) {
	q := "?mode=ro&_busy_timeout=10000"
	if immutable {
		q += "&immutable=1"
	}
	db, err := sql.Open("sqlite", sqliteURI(loc)+q)
	if err != nil {
		return nil, 0, false, err
	}
	db.SetMaxOpenConns(1)
	v, ok, err := appliedVersion(ctx, db, false)
	if err != nil {
		db.Close()
		return nil, 0, false, err
	}
	return db, v, ok, nil
}
