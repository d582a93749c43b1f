package lab_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/kdelta/kdelta/internal/testenv"
)

// A pgLab is a database of its own on the test cluster, made a lab by
// kdelta lab init, and the URLs of its roles.
type pgLab struct {
	admin string // the owner's URL
	name  string // the database, and the prefix of its roles
}

// newPGLab makes a fresh database on $KDELTA_TEST_POSTGRES and runs
// kdelta lab init on it; the test's end drops it and its roles.
func newPGLab(t *testing.T, m *machine) *pgLab {
	t.Helper()
	base := os.Getenv("KDELTA_TEST_POSTGRES")
	if base == "" {
		testenv.Skip(t, "KDELTA_TEST_POSTGRES is not set: no PostgreSQL to test against (eval \"$(scripts/postgres.sh)\" starts one)")
	}
	b := make([]byte, 4)
	rand.Read(b)
	name := "klab_" + hex.EncodeToString(b)
	adm, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adm.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(base)
	u.Path = "/" + name
	l := &pgLab{admin: u.String(), name: name}
	t.Cleanup(func() {
		adm.Exec("DROP DATABASE " + name + " WITH (FORCE)")
		for _, r := range []string{"agent", "submitter", "reader"} {
			adm.Exec("DROP ROLE IF EXISTS " + name + "_" + r + "_login")
			adm.Exec("DROP ROLE IF EXISTS " + name + "_" + r)
		}
		adm.Close()
	})
	out := m.ok("lab", "init", "--store", l.admin)
	for _, r := range []string{"agent", "submitter", "reader"} {
		if !strings.Contains(out, name+"_"+r) {
			t.Fatalf("lab init printed %q: no role %s_%s", out, name, r)
		}
		login := name + "_" + r + "_login"
		l.exec(t, "CREATE ROLE "+login+" LOGIN PASSWORD '"+pgPassword+"' IN ROLE "+name+"_"+r)
	}
	return l
}

// pgPassword is in every role's URL, and must never show.
const pgPassword = "Sekrit-pw-4711"

// as is the URL of the lab as role ("agent", "submitter", "reader"), with
// its password.
func (l *pgLab) as(role string) string {
	u, _ := url.Parse(l.admin)
	u.User = url.UserPassword(l.name+"_"+role+"_login", pgPassword)
	return u.String()
}

func (l *pgLab) exec(t *testing.T, stmt string) {
	t.Helper()
	db := l.open(t, l.admin)
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func (l *pgLab) open(t *testing.T, loc string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return db
}

// refused checks that role may not run stmt: PostgreSQL refuses it for
// want of privilege, not for any other reason.
func refused(t *testing.T, db *sql.DB, role, stmt string) {
	t.Helper()
	_, err := db.Exec(stmt)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("%s: %s: %v; want permission denied (42501)", role, stmt, err)
	}
}

// Acceptance 5: lab init makes the tables and the roles; an agent claims
// and completes jobs and inserts results but can neither update nor
// delete them; a reader only reads; the password of the URLs shows
// nowhere.
func TestPostgresRoles(t *testing.T) {
	m := newMachine(t)
	l := newPGLab(t, m)
	ids, _ := jobIDs(t, m.ok("submit", "--store", l.as("submitter"), "--on", "pg-a", "--", "run", "syscall:calls=20000", "-r", "2", "--warmup", "0"))
	p := m.start("agent", "--store", l.as("agent"), "--name", "pg-a", "--once", "--lease", "2s")
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("agent as the agent role: exit %d\n%s", code, p.stderr.String())
	}
	out := m.ok("jobs", "show", "--store", l.as("reader"), idArg(ids[0]))
	if !strings.Contains(out, "completed") || !strings.Contains(out, "2 stored of 2") {
		t.Fatalf("jobs show as the reader role:\n%s\nthe agent's log:\n%s", out, p.stderr.String())
	}
	ls := m.ok("results", "ls", "--store", l.as("reader"))
	agents := m.ok("agents", "ls", "--store", l.as("reader"))
	for what, s := range map[string]string{"agent's log": p.stderr.String(), "jobs show": out, "results ls": ls, "agents ls": agents} {
		if strings.Contains(s, pgPassword) {
			t.Errorf("the %s shows the password:\n%s", what, s)
		}
	}
	admin := l.open(t, l.admin)
	for _, table := range []string{"river_job", "lab_agents", "lab_sets", "lab_runs", "lab_attempts", "sets", "labels", "benchmarks", "runs"} {
		if n := pgCount(t, admin, "SELECT COUNT(*) FROM "+table+" r WHERE r::text LIKE '%"+pgPassword+"%'"); n != 0 {
			t.Errorf("%d rows of %s hold the password", n, table)
		}
	}
	if n := pgCount(t, admin, "SELECT COUNT(*) FROM sets"); n != 1 {
		t.Errorf("%d result sets stored, want 1", n)
	}
	agent := l.open(t, l.as("agent"))
	for _, stmt := range []string{
		"UPDATE sets SET tool = 'forged'", "DELETE FROM sets", "DELETE FROM runs", "UPDATE run_values SET value = 0",
		"DELETE FROM labels", "UPDATE lab_runs SET body = '{}'", "DELETE FROM lab_runs", "DELETE FROM lab_sets",
		"TRUNCATE sets", "DROP TABLE lab_runs",
	} {
		refused(t, agent, "agent", stmt)
	}
	reader := l.open(t, l.as("reader"))
	for _, stmt := range []string{
		"INSERT INTO sets (id, created, updated, tool, kernel, complete, body) VALUES ('x', 0, 0, '', '', 1, '{}')",
		"UPDATE river_job SET state = 'available'", "DELETE FROM river_job", "UPDATE lab_agents SET load = 0",
		"INSERT INTO lab_runs (job_id, cell, bench, warmup, run, attempt, agent, start, body) VALUES (1, '', 0, 0, 9, 1, '', 0, '{}')",
	} {
		refused(t, reader, "reader", stmt)
	}
	submitter := l.open(t, l.as("submitter"))
	for _, stmt := range []string{"DELETE FROM river_job", "UPDATE sets SET tool = 'forged'", "DELETE FROM sets",
		"INSERT INTO lab_runs (job_id, cell, bench, warmup, run, attempt, agent, start, body) VALUES (1, '', 0, 0, 9, 1, '', 0, '{}')"} {
		refused(t, submitter, "submitter", stmt)
	}
	// A refused connection says where, without the password.
	bad := strings.Replace(l.as("reader"), l.name+"_reader_login", "nobody", 1)
	_, errs, code := m.run("jobs", "ls", "--store", bad)
	if code != 2 || strings.Contains(errs, pgPassword) || !strings.Contains(errs, "xxxxx") {
		t.Errorf("jobs ls as a role that does not exist: exit %d, %q; want exit 2 naming the URL without its password", code, errs)
	}
}

func pgCount(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func idArg(id int64) string { return strconv.FormatInt(id, 10) }

// An agent whose connection the database drops while the agent starts
// (PostgreSQL restarting, an administrator ending its session) tries
// again and starts. Here the drop comes where an agent restarted in the
// middle of TestLabOfThree once died: at the query for jobs back from a
// boot, which a lock on lab_boots holds until the connection is ended.
func TestAgentStartOutlivesDroppedConnection(t *testing.T) {
	m := newMachine(t)
	l := newPGLab(t, m)
	admin := l.open(t, l.admin)
	tx, err := admin.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("LOCK TABLE lab_boots IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	p := m.start("agent", "--store", l.as("agent"), "--name", "dropped", "--lease", "2s")
	defer func() {
		p.signal(syscall.SIGTERM)
		if code := p.wait(t, 20*time.Second); code != 0 {
			t.Errorf("agent after SIGTERM: exit %d\n%s", code, p.stderr.String())
		}
	}()
	var pid int
	until(t, 30*time.Second, "the agent's start waiting on lab_boots", func() bool {
		return admin.QueryRow(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE '%lab_boots%'`).Scan(&pid) == nil
	}, func() { t.Logf("agent's log:\n%s", p.stderr.String()) })
	var ended bool
	if err := admin.QueryRow("SELECT pg_terminate_backend($1)", pid).Scan(&ended); err != nil || !ended {
		t.Fatalf("pg_terminate_backend(%d): %v %v", pid, ended, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	until(t, 30*time.Second, "the agent started and beating", func() bool {
		return strings.Contains(p.stderr.String(), "agent dropped: queue") &&
			pgCount(t, admin, "SELECT COUNT(*) FROM lab_agents WHERE name = 'dropped' AND stopped = 0") == 1
	}, func() { t.Logf("agent's log:\n%s", p.stderr.String()) })
	if log := p.stderr.String(); !strings.Contains(log, "resuming boots: ") || !strings.Contains(log, "57P01") {
		t.Errorf("the agent's log does not say the dropped query is tried again:\n%s", log)
	}
}
