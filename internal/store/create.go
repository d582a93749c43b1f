package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// createSQLite makes a new store at path, when there is none, whole: the
// schema is created in a temporary file beside path, which is then
// linked to path, a step that never replaces a file. Several kdelta
// processes creating one store at once each build their own; one link
// wins and the others open the winner's, so no process ever sees a store
// half made (an SQLite database without kdelta's tables, which it would
// refuse as "not a kdelta store"). A disk that cannot hold the new store
// fails here, before anything is at path, with one line saying so.
func createSQLite(ctx context.Context, path string, target int64) error {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return nil // there is a store, or a file checkSQLite will judge
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create a new store: %w", path, err)
	}
	name := tmp.Name()
	tmp.Close()
	// As SQLite would create it: readable by the users who may read the
	// directory (a root-owned store that others read, not write).
	os.Chmod(name, 0o644)
	defer os.Remove(name)
	defer os.Remove(name + "-journal")
	// The temporary file is kdelta's alone: no lock to wait for, no WAL
	// (the header is switched to WAL, which is kept in the file, last).
	db, err := sql.Open("sqlite", sqliteURI(name)+"?_foreign_keys=1&_journal_mode=DELETE")
	if err != nil {
		return fmt.Errorf("%s: cannot create a new store: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	err = migrate(ctx, db, false, target)
	if err == nil {
		_, err = db.ExecContext(ctx, "PRAGMA journal_mode=WAL")
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The schema reaches the disk before the name does.
		err = syncFile(name)
	}
	if err != nil {
		if ferr := spaceFor(filepath.Dir(path)); ferr != nil {
			// SQLite's own words for a full disk do not always reach
			// here ("no such table: goose_db_version"): the disk's do.
			err = ferr
		}
		return fmt.Errorf("%s: cannot create a new store: %w", path, err)
	}
	if err := os.Link(name, path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s: cannot create a new store: %w", path, err)
	}
	return nil
}

// syncFile flushes the file at name to the disk.
func syncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// spaceFor tells whether a small file can be written in dir: the error
// when it cannot (no space left on device, a read-only file system), nil
// when it can.
func spaceFor(dir string) error {
	f, err := os.CreateTemp(dir, ".kdelta-space-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(make([]byte, 64<<10)); err != nil {
		return fmt.Errorf("%s: %w", dir, errors.Unwrap(err))
	}
	return f.Sync()
}

// quiet wraps an error for errors.Is without adding to the message.
type quiet struct{ err error }

func (q quiet) Error() string { return "" }
func (q quiet) Unwrap() error { return q.err }

// diskErr is err, an error of SQLite's on the store at path, or the
// disk's own error when the store's directory cannot take a small file:
// a full disk reaches SQLite as "disk I/O error" when its shared-memory
// file cannot grow.
func diskErr(path string, err error) error {
	if isBusy(err) {
		return err
	}
	if ferr := spaceFor(filepath.Dir(path)); ferr != nil {
		return fmt.Errorf("%w (SQLite: %v)", ferr, err)
	}
	return err
}
