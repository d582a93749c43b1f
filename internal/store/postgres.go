package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

func openPostgres(ctx context.Context, loc string) (Store, error) {
	return openPostgresAt(ctx, loc, SchemaVersion)
}

// openPostgresAt opens the PostgreSQL store at URL loc with its schema at
// version target.
func openPostgresAt(ctx context.Context, loc string, target int64) (Store, error) {
	name := redact(loc)
	db, err := sql.Open("pgx", loc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", name, oneLine(err))
	}
	v, _, err := appliedVersion(ctx, db, true)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", name, oneLine(err))
	}
	if v > SchemaVersion {
		db.Close()
		return nil, newerSchemaError(name, v)
	}
	if err := migrate(ctx, db, true, target); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", name, oneLine(err))
	}
	return &sqlStore{db: db, pg: true, loc: name}, nil
}

// redact drops the password from a URL for messages.
func redact(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return "postgres store"
	}
	return u.Redacted()
}
