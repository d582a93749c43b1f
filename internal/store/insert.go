package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// An Execer runs one statement in a caller's transaction: a *sql.Tx, or
// an adapter over another driver's (the lab's pgx transactions).
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// execer is what the statements of this package run on.
type execer = Execer

// InsertTx records set, which must not be in the store yet, in the
// caller's transaction tx on a store of the kind postgres says, so that
// it commits or rolls back with the caller's other work (a lab job's
// completion). It only inserts: it needs no right to update or delete
// results, and a set already recorded under the id is an error.
func InsertTx(ctx context.Context, tx Execer, postgres bool, set *result.Set) error {
	if set.ID == "" {
		return errors.New("store: a result set without an id")
	}
	body, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("store: encode set %s: %w", set.ID, err)
	}
	s := &sqlStore{pg: postgres}
	err = s.exec(ctx, tx, `INSERT INTO sets (id, created, updated, tool, kernel, complete, conditions, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		set.ID, nanos(set.Created), nanos(time.Now()), set.Tool, kernelOf(set), flag(set.Complete), result.FormatConditions(set.Conditions), string(body))
	if err != nil {
		return fmt.Errorf("store: result set %s: %w", set.ID, err)
	}
	if err := s.insertRows(ctx, tx, set); err != nil {
		return fmt.Errorf("store: result set %s: %w", set.ID, err)
	}
	return nil
}
