package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// The migrations are plain SQL that both SQLite and PostgreSQL accept, so
// the two backends cannot drift apart.
//
//go:embed migrations/*.sql
var migrations embed.FS

// SchemaVersion is the newest schema this kdelta knows: the version of its
// last migration.
var SchemaVersion = lastMigration()

func lastMigration() int64 {
	ents, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		panic(err)
	}
	var v int64
	for _, e := range ents {
		n, _, _ := strings.Cut(e.Name(), "_")
		x, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("migration %s: no version number", e.Name()))
		}
		v = max(v, x)
	}
	return v
}

// versionTable is goose's record of the migrations applied.
const versionTable = "goose_db_version"

// migrate brings db's schema up to version target (SchemaVersion in use;
// older versions in tests of the upgrade).
func migrate(ctx context.Context, db *sql.DB, pg bool, target int64) error {
	// A store already at the target needs nothing, and no lock: the
	// common case, every time kdelta opens it.
	if v, ok, err := appliedVersion(ctx, db, pg); err == nil && ok && v >= target {
		return nil
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithTableName(versionTable)}
	if pg {
		dialect = goose.DialectPostgres
		// Machines of a lab may open a fresh database at the same time:
		// an advisory lock lets one of them migrate.
		// The lock is kdelta's own ("kdelta" in ASCII), not goose's
		// default that every goose user of the database shares, and it
		// is tried every second.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(0x6b64656c7461), lock.WithLockTimeout(1, 300))
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db, sub, opts...)
	if err != nil {
		return err
	}
	// SQLite has no lock for goose to hold across migrations: kdelta
	// processes opening a new store together may each decide to apply a
	// migration, and all but one fail ("table sets already exists"). Each
	// migration is one transaction, so the losers changed nothing; they
	// look again and find less or nothing left to do.
	for try := 0; ; try++ {
		_, err = p.UpTo(ctx, target)
		if err == nil || pg || try == 8 {
			break
		}
		if v, ok, verr := appliedVersion(ctx, db, false); verr == nil && ok && v >= target {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(10<<try) * time.Millisecond):
		}
	}
	if err != nil {
		return fmt.Errorf("upgrade the schema: %w", err)
	}
	return nil
}

// appliedVersion reads the schema version recorded in db without writing
// anything; ok is false when db has no version table.
func appliedVersion(ctx context.Context, db queryer, pg bool) (v int64, ok bool, err error) {
	var exists bool
	if pg {
		var reg sql.NullString
		err = db.QueryRowContext(ctx, "SELECT to_regclass($1)::text", versionTable).Scan(&reg)
		exists = reg.Valid
	} else {
		var n int
		err = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", versionTable).Scan(&n)
		exists = n > 0
	}
	if err != nil || !exists {
		return 0, false, err
	}
	var max sql.NullInt64
	err = db.QueryRowContext(ctx, "SELECT MAX(version_id) FROM "+versionTable+" WHERE is_applied").Scan(&max)
	return max.Int64, true, err
}

// queryer is what appliedVersion needs of a *sql.DB.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// newerSchemaError says that a store was written by a newer kdelta.
func newerSchemaError(loc string, v int64) error {
	return fmt.Errorf("%s: schema version %d is newer than this kdelta knows (%d): use a newer kdelta, or another --store; the store was left untouched", loc, v, SchemaVersion)
}
