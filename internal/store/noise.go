package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kdelta/kdelta/internal/stats"
)

// A NoiseKey names what a session noise was measured for: the host, a
// benchmark (its workload and formatted parameters), the conditions its
// runs ran under (CPUs allowed, scheduling policy) and one metric.
type NoiseKey struct {
	Host, Workload, Params, Conditions, Metric string
}

// String writes the key as messages name it.
func (k NoiseKey) String() string {
	s := k.Workload
	if k.Params != "" {
		s += ":" + k.Params
	}
	s += " " + k.Metric + " on " + k.Host
	if k.Conditions != "" {
		s += " (" + k.Conditions + ")"
	}
	return s
}

// A Noise is a host's session noise of one benchmark's metric, and when
// it was measured.
type Noise struct {
	Key      NoiseKey
	Noise    stats.SessionNoise
	Measured time.Time
	// Source says how the host's noise was measured: NoiseCalibrated,
	// NoiseTwins, or "" for a noise recorded before sources were kept.
	Source string
}

// The sources of a recorded noise (Noise.Source).
const (
	NoiseCalibrated = "calibrate" // kdelta calibrate's A/A sessions
	NoiseTwins      = "twins"     // learned from stored twins
)

// SaveNoise records n, replacing what was recorded under its key, in one
// transaction.
func (s *sqlStore) SaveNoise(ctx context.Context, n Noise) error {
	k := n.Key
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.exec(ctx, tx, "DELETE FROM session_noise WHERE host = ? AND workload = ? AND params = ? AND conditions = ? AND metric = ?",
			k.Host, k.Workload, k.Params, k.Conditions, k.Metric); err != nil {
			return err
		}
		return s.exec(ctx, tx, "INSERT INTO session_noise (host, workload, params, conditions, metric, sd, mean_sd, runs, df, measured, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			k.Host, k.Workload, k.Params, k.Conditions, k.Metric, n.Noise.SD, n.Noise.MeanSD, n.Noise.Runs, n.Noise.DF, nanos(n.Measured), n.Source)
	})
}

// Noise returns the session noise recorded under key; the error wraps
// ErrNotFound when there is none.
func (s *sqlStore) Noise(ctx context.Context, key NoiseKey) (Noise, error) {
	ns, err := s.noises(ctx, "WHERE host = ? AND workload = ? AND params = ? AND conditions = ? AND metric = ?",
		key.Host, key.Workload, key.Params, key.Conditions, key.Metric)
	if err != nil {
		return Noise{}, err
	}
	if len(ns) == 0 {
		return Noise{}, fmt.Errorf("session noise of %s: %w", key, ErrNotFound)
	}
	return ns[0], nil
}

// Noises returns the session noises recorded for host, or for every host
// when host is "", ordered by host, workload, parameters, conditions and
// metric.
func (s *sqlStore) Noises(ctx context.Context, host string) ([]Noise, error) {
	if host == "" {
		return s.noises(ctx, "")
	}
	return s.noises(ctx, "WHERE host = ?", host)
}

func (s *sqlStore) noises(ctx context.Context, where string, args ...any) ([]Noise, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind("SELECT host, workload, params, conditions, metric, sd, mean_sd, runs, df, measured, source FROM session_noise "+where+
		" ORDER BY host, workload, params, conditions, metric"), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Noise
	for rows.Next() {
		var n Noise
		var measured int64
		k := &n.Key
		if err := rows.Scan(&k.Host, &k.Workload, &k.Params, &k.Conditions, &k.Metric, &n.Noise.SD, &n.Noise.MeanSD, &n.Noise.Runs, &n.Noise.DF, &measured, &n.Source); err != nil {
			return nil, err
		}
		n.Measured = fromNanos(measured)
		out = append(out, n)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}
