package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// A backend opens a fresh, empty store of one kind for a test.
type backend struct {
	name string
	// open returns the location of a new empty store; every open of it
	// with openAt sees the same database.
	newLoc func(t testing.TB) string
}

// openAt opens the store at loc with its schema at version target.
func openAt(ctx context.Context, loc string, target int64) (Store, error) {
	if IsPostgres(loc) {
		return openPostgresAt(ctx, loc, target)
	}
	return openSQLiteAt(ctx, loc, target)
}

var sqliteBackend = backend{"sqlite", func(t testing.TB) string {
	return filepath.Join(t.TempDir(), "kdelta.db")
}}

var pgBackend = backend{"postgres", func(t testing.TB) string {
	base := os.Getenv("KDELTA_TEST_POSTGRES")
	if base == "" {
		testenv.Skip(t, "KDELTA_TEST_POSTGRES is not set: no PostgreSQL to test against (eval \"$(scripts/postgres.sh)\" starts one)")
	}
	return pgSchema(t, base)
}}

// backends are the stores every test of the suite runs against.
var backends = []backend{sqliteBackend, pgBackend}

var pgOnce sync.Once

// pgSchema makes a schema of its own for a test in the database at base
// and returns a URL whose search_path points at it, so tests neither see
// each other's sets nor the store of a previous run.
func pgSchema(t testing.TB, base string) string {
	t.Helper()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatalf("KDELTA_TEST_POSTGRES=%s: %v", redact(base), err)
	}
	pgOnce.Do(func() {
		var v string
		db.QueryRow("SHOW server_version").Scan(&v)
		fmt.Printf("store tests: PostgreSQL %s at %s\n", v, redact(base))
	})
	var b [6]byte
	rand.Read(b[:])
	schema := "kdelta_test_" + hex.EncodeToString(b[:])
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// forEachBackend runs f as a subtest on every backend.
func forEachBackend(t *testing.T, f func(t *testing.T, loc string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b.newLoc(t)) })
	}
}

func mustOpen(t testing.TB, loc string) Store {
	t.Helper()
	s, err := Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// synth describes a synthetic result set.
type synth struct {
	id       string
	created  time.Time
	labels   map[string]string
	workload string
	params   map[string]string
	metric   result.Metric
	runs     int     // measured runs
	warmups  int     // warm-up runs before them
	failed   int     // failed runs after them
	centre   float64 // values are centre × (1 + cv·N(0,1))
	cv       float64
	seed     uint64
}

// set builds the synthetic set: every run with the metric and a second
// one, so that queries must pick the right metric.
func (s synth) set() *result.Set {
	rng := mrand.New(mrand.NewPCG(s.seed, 0x6b64656c7461))
	m := s.metric
	if m.Name == "" {
		m = result.Metric{Name: "calls/s", Unit: "calls/s", Better: result.Higher}
	}
	b := &result.Benchmark{
		Workload: s.workload,
		Params:   s.params,
		Metrics:  []result.Metric{m, {Name: "elapsed", Unit: "s", Better: result.Lower}},
	}
	start := s.created
	add := func(i int, warm bool, status string) {
		v := s.centre * (1 + s.cv*rng.NormFloat64())
		r := &result.Run{Index: i, Warmup: warm, Start: start, Status: status, WallSec: 1, ExitCode: 0}
		if status == result.StatusOK {
			r.Values = map[string]float64{m.Name: v, "elapsed": 1e6 / math.Max(v, 1)}
		} else {
			r.Reason = "synthetic failure"
		}
		b.Runs = append(b.Runs, r)
		start = start.Add(time.Second)
	}
	for i := 0; i < s.warmups; i++ {
		add(i, true, result.StatusOK)
	}
	for i := 0; i < s.runs; i++ {
		add(i, false, result.StatusOK)
	}
	for i := 0; i < s.failed; i++ {
		add(s.runs+i, false, result.StatusFailed)
	}
	labels := map[string]string{}
	for k, v := range s.labels {
		labels[k] = v
	}
	return &result.Set{
		Schema: result.Schema, ID: s.id, Created: s.created, Tool: "kdelta test",
		Labels: labels, Benchmarks: []*result.Benchmark{b}, Complete: true,
	}
}

// t0 is the time of the first synthetic set.
var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
