// Package store keeps result sets: an embedded SQLite database under the
// user's data directory by default, or a PostgreSQL database shared by a
// lab of machines, behind one interface. Each set is kept whole, as the
// JSON that kdelta writes to files, and taken apart into rows (labels,
// benchmarks, metrics, runs and the metric values of every run), so that
// listing sets and building a history across builds never decode JSON.
//
// The schema is created and upgraded by migrations embedded in the binary.
// A database written by a newer kdelta, or a file that is not a database,
// is refused before anything is written to it.
package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/result"
)

// A Store keeps result sets.
type Store interface {
	// Save records s, replacing what was recorded under its id before.
	// It is one transaction: a reader, or a kdelta killed while saving,
	// sees either the previous version of the set or the new one. kdelta
	// run calls it after every run.
	Save(ctx context.Context, s *result.Set) error
	// Get returns the set with exactly this id; the error wraps
	// ErrNotFound when there is none.
	Get(ctx context.Context, id string) (*result.Set, error)
	// List describes the sets that pass f, oldest first.
	List(ctx context.Context, f Filter) ([]Info, error)
	// Tag sets label key of set id to value; an empty value removes the
	// label.
	Tag(ctx context.Context, id, key, value string) error
	// Delete removes set id and everything recorded with it.
	Delete(ctx context.Context, id string) error
	// Samples returns, per benchmark that matches q, the metric's values
	// over its measured runs: the data a history is made of.
	Samples(ctx context.Context, q SampleQuery) ([]Sample, error)
	// SaveNoise records a host's session noise (kdelta calibrate's),
	// replacing what was recorded under its key, in one transaction.
	SaveNoise(ctx context.Context, n Noise) error
	// Noise returns the session noise recorded under key; the error wraps
	// ErrNotFound when there is none.
	Noise(ctx context.Context, key NoiseKey) (Noise, error)
	// Noises returns the session noises recorded for host ("" for every
	// host), ordered by their keys.
	Noises(ctx context.Context, host string) ([]Noise, error)
	// Location names the store in messages: a file path, or a PostgreSQL
	// URL without its password.
	Location() string
	Close() error
}

// ErrNotFound is wrapped by errors for sets that are not in the store.
var ErrNotFound = errors.New("not in the store")

// A Label is one name=value pair of a set.
type Label struct {
	Name, Value string
}

// String writes the label as the command line takes it.
func (l Label) String() string { return l.Name + "=" + l.Value }

// A Filter selects sets; its zero value selects every set.
type Filter struct {
	// IDPrefix keeps the sets whose id starts with it.
	IDPrefix string
	// Labels keeps the sets that carry every one of these labels.
	Labels []Label
	// Workload keeps the sets with a benchmark of this workload.
	Workload string
}

// Info describes a stored set without its runs.
type Info struct {
	ID      string
	Created time.Time
	// Updated is the time of the set's last write: for a set that kdelta
	// run was still adding runs to, when it stopped.
	Updated  time.Time
	Labels   map[string]string
	Kernel   string   // the release of the kernel it ran on, else its kernel label
	Tool     string   // "kdelta 0.1.0", "import stress-ng"
	Workload []string // its benchmarks' workloads, in order, each once
	Runs     int      // measured runs over all its benchmarks
	Complete bool
}

// A SampleQuery selects the values of one metric of one workload.
type SampleQuery struct {
	Workload string
	// Params keeps the benchmarks whose parameters include these.
	Params map[string]string
	// Metric is the metric's name; empty selects each benchmark's first
	// (primary) metric.
	Metric string
	// Labels keeps the sets that carry every one of these labels.
	Labels []Label
}

// A Sample is one benchmark of one set: its metric values over its
// measured runs, in run order.
type Sample struct {
	SetID   string
	Created time.Time
	Labels  map[string]string
	// Conditions are the set's run conditions (nil: unknown).
	Conditions map[string]string
	Bench      int // the benchmark's position in the set
	Params     map[string]string
	Metric     result.Metric
	Values     []float64
	// Emulated: the set was measured under TCG emulation (its warnings
	// say so, compare.Emulated): its timings are qemu's.
	Emulated bool
}

// Key names the sample's benchmark as result.Benchmark.Key does.
func (s Sample) Key(workload string) string {
	return workload + ":" + result.FormatParams(s.Params)
}

// DefaultPath is where the SQLite store lives unless told otherwise:
// $XDG_DATA_HOME/kdelta/kdelta.db, or ~/.local/share/kdelta/kdelta.db.
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the store: %w (set XDG_DATA_HOME or --store)", err)
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "kdelta", "kdelta.db"), nil
}

// IsPostgres tells whether loc names a PostgreSQL database.
func IsPostgres(loc string) bool {
	return strings.HasPrefix(loc, "postgres://") || strings.HasPrefix(loc, "postgresql://")
}

// Open opens the store at loc, creating and upgrading its schema as
// needed: a postgres:// or postgresql:// URL, else the path of an SQLite
// file ("" for DefaultPath), whose directory is created.
func Open(ctx context.Context, loc string) (Store, error) {
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
	return openSQLite(ctx, loc)
}
