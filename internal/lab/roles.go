package lab

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/kdelta/kdelta/internal/store"
)

// Roles are the least-privilege roles Init makes, each a group role
// without login that the lab's login roles are granted
// (GRANT lab_agent TO alice): named after the database, so that labs on
// one server keep apart.
type Roles struct {
	Agent, Submitter, Reader string
}

// resultTables are the store's tables of result sets, which agents may
// only insert into.
var resultTables = []string{"sets", "labels", "benchmarks", "metrics", "runs", "run_values"}

// labTables are the lab's tables of what jobs measured, insert-only too.
var labTables = []string{"lab_sets", "lab_runs", "lab_attempts", "lab_boots"}

var roleName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Init makes the PostgreSQL database at loc a lab: River's tables
// (rivermigrate), the store's and the lab's (goose), and the roles
// agents, submitters and readers need, as the database's owner.
func Init(ctx context.Context, loc string) (Roles, error) {
	if !store.IsPostgres(loc) {
		return Roles{}, errors.New("lab init: --store postgres://...: an SQLite lab needs no init (kdelta agent and submit make it)")
	}
	l, err := open(ctx, loc, true, nil)
	if err != nil {
		return Roles{}, err
	}
	defer l.Close()
	var db, schema string
	if err := l.db.QueryRowContext(ctx, "SELECT current_database(), current_schema()").Scan(&db, &schema); err != nil {
		return Roles{}, fmt.Errorf("%s: %w", l.loc, err)
	}
	prefix := strings.ToLower(db)
	if !roleName.MatchString(prefix) {
		prefix = "kdelta"
	}
	r := Roles{Agent: prefix + "_agent", Submitter: prefix + "_submitter", Reader: prefix + "_reader"}
	if err := l.grant(ctx, r, schema); err != nil {
		return r, fmt.Errorf("%s: roles: %w", l.loc, err)
	}
	return r, nil
}

// grant creates the roles, if need be, and gives each exactly its rights
// on the tables of schema.
func (l *Lab) grant(ctx context.Context, r Roles, schema string) error {
	rows, err := l.db.QueryContext(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'river%'", schema)
	if err != nil {
		return err
	}
	var river []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		river = append(river, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	s := pgx.Identifier{schema}.Sanitize()
	all := func(tables []string) string {
		q := make([]string, len(tables))
		for i, t := range tables {
			q[i] = s + "." + pgx.Identifier{t}.Sanitize()
		}
		return strings.Join(q, ", ")
	}
	results := all(append(append([]string{}, resultTables...), labTables...))
	agent, sub, reader := pgx.Identifier{r.Agent}.Sanitize(), pgx.Identifier{r.Submitter}.Sanitize(), pgx.Identifier{r.Reader}.Sanitize()
	stmts := []string{}
	for _, role := range []string{agent, sub, reader} {
		stmts = append(stmts,
			"DO $$ BEGIN CREATE ROLE "+role+" NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
			"REVOKE ALL ON ALL TABLES IN SCHEMA "+s+" FROM "+role,
			"GRANT USAGE ON SCHEMA "+s+" TO "+role,
			"GRANT SELECT ON ALL TABLES IN SCHEMA "+s+" TO "+role)
	}
	stmts = append(stmts,
		// Agents run River: they claim, complete, rescue and clean jobs
		// and elect a leader, all in River's tables.
		"GRANT INSERT, UPDATE, DELETE ON "+all(river)+" TO "+agent,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA "+s+" TO "+agent,
		// They insert what they measure, never change or remove it.
		"GRANT INSERT ON "+results+" TO "+agent,
		"GRANT INSERT, UPDATE ON "+s+".lab_agents TO "+agent,
		// Submitters queue, cancel and retry jobs.
		"GRANT INSERT, UPDATE ON "+s+".river_job TO "+sub,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA "+s+" TO "+sub,
	)
	for _, st := range stmts {
		if _, err := l.db.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	return nil
}
