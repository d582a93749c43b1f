package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
)

// sqlStore is the Store on database/sql; SQLite and PostgreSQL differ
// only in how a query writes its placeholders.
type sqlStore struct {
	db  *sql.DB
	pg  bool
	loc string
}

func (s *sqlStore) Location() string { return s.loc }
func (s *sqlStore) Close() error     { return s.db.Close() }

// rebind rewrites the ? placeholders of query for the store's database
// (Rebind).
func (s *sqlStore) rebind(query string) string { return Rebind(s.pg, query) }

// Rebind rewrites the ? placeholders of query as $1, $2... for PostgreSQL
// (pg), and leaves it as it is for SQLite. The store's and the lab's
// queries hold no ? in their literals.
func Rebind(pg bool, query string) string {
	if !pg {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *sqlStore) exec(ctx context.Context, tx execer, query string, args ...any) error {
	_, err := tx.ExecContext(ctx, s.rebind(query), args...)
	return err
}

// nanos and fromNanos keep times as Unix nanoseconds, which both databases
// store and order alike.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kernelOf is the kernel a set ran on: the release its fingerprint read,
// else its kernel label (an imported set has no fingerprint).
func kernelOf(set *result.Set) string {
	if set.Env != nil && set.Env.Kernel.Release.Known() && set.Env.Kernel.Release.Value != "" {
		return set.Env.Kernel.Release.Value
	}
	return set.Labels["kernel"]
}

func (s *sqlStore) Save(ctx context.Context, set *result.Set) error {
	if set.ID == "" {
		return errors.New("store: a result set without an id")
	}
	body, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("store: encode set %s: %w", set.ID, err)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		return s.save(ctx, tx, set, body)
	})
}

// inTx runs f in a transaction, committed when f returns nil.
func (s *sqlStore) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", s.loc, err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("%s: %w", s.loc, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", s.loc, err)
	}
	return nil
}

// save writes set in tx: the row of the set, then its rows in the other
// tables, replacing any recorded before. Runs only ever get appended while
// kdelta run records a set, but replacing is as cheap for the sets of
// tens of runs that a run makes, and it stays right for any change.
func (s *sqlStore) save(ctx context.Context, tx *sql.Tx, set *result.Set, body []byte) error {
	now := time.Now()
	err := s.exec(ctx, tx, `INSERT INTO sets (id, created, updated, tool, kernel, complete, conditions, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET created = excluded.created, updated = excluded.updated,
			tool = excluded.tool, kernel = excluded.kernel, complete = excluded.complete,
			conditions = excluded.conditions, body = excluded.body`,
		set.ID, nanos(set.Created), nanos(now), set.Tool, kernelOf(set), flag(set.Complete), result.FormatConditions(set.Conditions), string(body))
	if err != nil {
		return err
	}
	if err := s.deleteRows(ctx, tx, set.ID, false); err != nil {
		return err
	}
	return s.insertRows(ctx, tx, set)
}

// insertRows writes the rows of set in every table but sets.
func (s *sqlStore) insertRows(ctx context.Context, tx execer, set *result.Set) error {
	var labels, benchmarks, metrics, runs, values [][]any
	for _, k := range sortedKeys(set.Labels) {
		labels = append(labels, []any{set.ID, k, set.Labels[k]})
	}
	for bi, b := range set.Benchmarks {
		params, err := json.Marshal(b.Params)
		if err != nil {
			return err
		}
		benchmarks = append(benchmarks, []any{set.ID, bi, b.Workload, string(params), b.Skipped})
		for mi, m := range b.Metrics {
			metrics = append(metrics, []any{set.ID, bi, mi, m.Name, m.Unit, string(m.Better)})
		}
		for ri, r := range b.Runs {
			runs = append(runs, []any{set.ID, bi, ri, r.Index, flag(r.Warmup), r.Status, nanos(r.Start), r.WallSec, r.UserSec, r.SysSec})
			for _, name := range sortedKeys(r.Values) {
				// SQLite would store NaN as NULL; a value that is not
				// a number stays in the JSON only.
				if v := r.Values[name]; !math.IsNaN(v) && !math.IsInf(v, 0) {
					values = append(values, []any{set.ID, bi, ri, name, v})
				}
			}
		}
	}
	inserts := []struct {
		table string
		cols  string
		rows  [][]any
	}{
		{"labels", "set_id, name, value", labels},
		{"benchmarks", "set_id, bench, workload, params, skipped", benchmarks},
		{"metrics", "set_id, bench, pos, name, unit, better", metrics},
		{"runs", "set_id, bench, pos, run, warmup, status, start, wall_s, user_s, sys_s", runs},
		{"run_values", "set_id, bench, pos, metric, value", values},
	}
	for _, in := range inserts {
		if err := s.insert(ctx, tx, in.table, in.cols, in.rows); err != nil {
			return err
		}
	}
	return nil
}

// maxParams bounds the placeholders of one statement, under SQLite's
// oldest limit (999) and far under PostgreSQL's (65535).
const maxParams = 900

// insert writes rows into table. PostgreSQL gets many rows a statement,
// as a round trip per row would make it several times slower; SQLite,
// in the same process, is fastest with one prepared statement run per row,
// which it need not parse again.
func (s *sqlStore) insert(ctx context.Context, tx execer, table, cols string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	width := len(rows[0])
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", width), ", ") + ")"
	if ptx, ok := tx.(*sql.Tx); ok && !s.pg {
		stmt, err := ptx.PrepareContext(ctx, "INSERT INTO "+table+" ("+cols+") VALUES "+tuple)
		if err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		defer stmt.Close()
		for _, r := range rows {
			if _, err := stmt.ExecContext(ctx, r...); err != nil {
				return fmt.Errorf("insert into %s: %w", table, err)
			}
		}
		return nil
	}
	per := max(maxParams/width, 1)
	for len(rows) > 0 {
		n := min(per, len(rows))
		var b strings.Builder
		b.WriteString("INSERT INTO " + table + " (" + cols + ") VALUES ")
		args := make([]any, 0, n*width)
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple)
			args = append(args, r...)
		}
		if err := s.exec(ctx, tx, b.String(), args...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// deleteRows removes the rows of set id from every table but sets (and
// from sets too when all is true). The order, children first, keeps the
// foreign keys satisfied without relying on cascades.
func (s *sqlStore) deleteRows(ctx context.Context, tx *sql.Tx, id string, all bool) error {
	tables := []string{"run_values", "runs", "metrics", "benchmarks", "labels"}
	for _, t := range tables {
		if err := s.exec(ctx, tx, "DELETE FROM "+t+" WHERE set_id = ?", id); err != nil {
			return err
		}
	}
	if all {
		return s.exec(ctx, tx, "DELETE FROM sets WHERE id = ?", id)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *sqlStore) Get(ctx context.Context, id string) (*result.Set, error) {
	var body string
	err := s.db.QueryRowContext(ctx, s.rebind("SELECT body FROM sets WHERE id = ?"), id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%s: result set %s: %w", s.loc, id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.loc, err)
	}
	return result.Decode(s.loc+": result set "+id, []byte(body))
}

func (s *sqlStore) Tag(ctx context.Context, id, key, value string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var body string
		err := tx.QueryRowContext(ctx, s.rebind("SELECT body FROM sets WHERE id = ?"), id).Scan(&body)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("result set %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		set, err := result.Decode("result set "+id, []byte(body))
		if err != nil {
			return err
		}
		if set.Labels == nil {
			set.Labels = map[string]string{}
		}
		if value == "" {
			delete(set.Labels, key)
		} else {
			set.Labels[key] = value
		}
		nb, err := json.Marshal(set)
		if err != nil {
			return err
		}
		if err := s.exec(ctx, tx, "UPDATE sets SET body = ?, kernel = ? WHERE id = ?", string(nb), kernelOf(set), id); err != nil {
			return err
		}
		if err := s.exec(ctx, tx, "DELETE FROM labels WHERE set_id = ? AND name = ?", id, key); err != nil {
			return err
		}
		if value == "" {
			return nil
		}
		return s.exec(ctx, tx, "INSERT INTO labels (set_id, name, value) VALUES (?, ?, ?)", id, key, value)
	})
}

func (s *sqlStore) Delete(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, s.rebind("SELECT COUNT(*) FROM sets WHERE id = ?"), id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("result set %s: %w", id, ErrNotFound)
		}
		return s.deleteRows(ctx, tx, id, true)
	})
}

// where writes the conditions of f on the sets aliased sx.
func where(f Filter) (string, []any) {
	conds := []string{"1 = 1"}
	var args []any
	if f.IDPrefix != "" {
		conds = append(conds, "substr(sx.id, 1, ?) = ?")
		args = append(args, len(f.IDPrefix), f.IDPrefix)
	}
	for _, l := range f.Labels {
		conds = append(conds, "EXISTS (SELECT 1 FROM labels lx WHERE lx.set_id = sx.id AND lx.name = ? AND lx.value = ?)")
		args = append(args, l.Name, l.Value)
	}
	if f.Workload != "" {
		// || '' keeps SQLite from scanning the workload's index (which
		// every set's benchmark may be in) once per set instead of
		// looking the set's benchmarks up: kdelta serve's history page of
		// 10,000 sets took 11 s with the scan, 0.5 s without
		// (bench/web.sh).
		conds = append(conds, "EXISTS (SELECT 1 FROM benchmarks bx WHERE bx.set_id = sx.id AND bx.workload || '' = ?)")
		args = append(args, f.Workload)
	}
	return strings.Join(conds, " AND "), args
}

func (s *sqlStore) List(ctx context.Context, f Filter) ([]Info, error) {
	cond, args := where(f)
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT sx.id, sx.created, sx.updated, sx.tool, sx.kernel, sx.complete,
			(SELECT COUNT(*) FROM runs r WHERE r.set_id = sx.id AND r.status = 'ok' AND r.warmup = 0)
		FROM sets sx WHERE `+cond+` ORDER BY sx.created, sx.id`), args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.loc, err)
	}
	var infos []Info
	at := map[string]int{}
	for rows.Next() {
		var in Info
		var created, updated int64
		var complete int
		if err := rows.Scan(&in.ID, &created, &updated, &in.Tool, &in.Kernel, &complete, &in.Runs); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: %w", s.loc, err)
		}
		in.Created, in.Updated, in.Complete = fromNanos(created), fromNanos(updated), complete != 0
		in.Labels = map[string]string{}
		at[in.ID] = len(infos)
		infos = append(infos, in)
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("%s: %w", s.loc, err)
	}
	if len(infos) == 0 {
		return nil, nil
	}
	err = s.each(ctx, "SELECT l.set_id, l.name, l.value FROM labels l WHERE l.set_id IN (SELECT sx.id FROM sets sx WHERE "+cond+")", args,
		func(id, name, value string) {
			if i, ok := at[id]; ok {
				infos[i].Labels[name] = value
			}
		})
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, "SELECT b.set_id, b.workload, '' FROM benchmarks b WHERE b.set_id IN (SELECT sx.id FROM sets sx WHERE "+cond+") ORDER BY b.set_id, b.bench", args,
		func(id, workload, _ string) {
			if i, ok := at[id]; ok {
				for _, w := range infos[i].Workload {
					if w == workload {
						return
					}
				}
				infos[i].Workload = append(infos[i].Workload, workload)
			}
		})
	if err != nil {
		return nil, err
	}
	return infos, s.summaryRuns(ctx, infos)
}

// each runs a query of three text columns and calls f on every row.
func (s *sqlStore) each(ctx context.Context, query string, args []any, f func(a, b, c string)) error {
	rows, err := s.db.QueryContext(ctx, s.rebind(query), args...)
	if err != nil {
		return fmt.Errorf("%s: %w", s.loc, err)
	}
	for rows.Next() {
		var a, b, c string
		if err := rows.Scan(&a, &b, &c); err != nil {
			rows.Close()
			return fmt.Errorf("%s: %w", s.loc, err)
		}
		f(a, b, c)
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("%s: %w", s.loc, err)
	}
	return nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *sqlStore) Samples(ctx context.Context, q SampleQuery) ([]Sample, error) {
	cond, args := where(Filter{Labels: q.Labels, Workload: q.Workload})
	// The metric asked for, or each benchmark's first.
	metricCond := "m.name = ?"
	margs := []any{q.Metric}
	if q.Metric == "" {
		metricCond, margs = "m.pos = 0", nil
	}
	query := `SELECT b.set_id, sx.created, sx.conditions, b.bench, b.params, m.name, m.unit, m.better, v.value
		FROM benchmarks b
		JOIN sets sx ON sx.id = b.set_id
		JOIN metrics m ON m.set_id = b.set_id AND m.bench = b.bench
		JOIN runs r ON r.set_id = b.set_id AND r.bench = b.bench
		JOIN run_values v ON v.set_id = r.set_id AND v.bench = r.bench AND v.pos = r.pos AND v.metric = m.name
		WHERE b.workload = ? AND ` + metricCond + ` AND r.status = 'ok' AND r.warmup = 0 AND ` + cond + `
		ORDER BY sx.created, b.set_id, b.bench, r.pos`
	all := append(append([]any{q.Workload}, margs...), args...)
	rows, err := s.db.QueryContext(ctx, s.rebind(query), all...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.loc, err)
	}
	var out []Sample
	for rows.Next() {
		var id, conds, params, name, unit, better string
		var created int64
		var bench int
		var v float64
		if err := rows.Scan(&id, &created, &conds, &bench, &params, &name, &unit, &better, &v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: %w", s.loc, err)
		}
		if n := len(out); n > 0 && out[n-1].SetID == id && out[n-1].Bench == bench {
			out[n-1].Values = append(out[n-1].Values, v)
			continue
		}
		p := parseParams(params)
		if !hasParams(p, q.Params) {
			continue
		}
		out = append(out, Sample{
			SetID: id, Created: fromNanos(created), Conditions: result.ParseConditions(conds), Bench: bench, Params: p,
			Metric: result.Metric{Name: name, Unit: unit, Better: result.Better(better)},
			Values: []float64{v},
		})
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("%s: %w", s.loc, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	labels := map[string]map[string]string{}
	err = s.each(ctx, `SELECT l.set_id, l.name, l.value FROM labels l WHERE l.set_id IN (SELECT sx.id FROM sets sx WHERE `+cond+`)`, args,
		func(id, name, value string) {
			if labels[id] == nil {
				labels[id] = map[string]string{}
			}
			labels[id][name] = value
		})
	if err != nil {
		return nil, err
	}
	emulated, err := s.emulated(ctx, cond, args)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Labels = labels[out[i].SetID]
		if out[i].Labels == nil {
			out[i].Labels = map[string]string{}
		}
		out[i].Emulated = emulated[out[i].SetID]
	}
	return out, nil
}

// emulatedMark starts the warning kdelta vm records in the sets of boots
// under TCG (vm.TCGWarning); a set whose stored body holds it is decoded
// and asked compare.Emulated, the one rule.
const emulatedMark = "timings emulated under TCG"

// emulated are the sets matching cond (over sets sx) that were measured
// under TCG emulation.
func (s *sqlStore) emulated(ctx context.Context, cond string, args []any) (map[string]bool, error) {
	out := map[string]bool{}
	var bad error
	err := s.each(ctx, `SELECT sx.id, sx.body, '' FROM sets sx WHERE sx.body LIKE ? AND `+cond, append([]any{"%" + emulatedMark + "%"}, args...),
		func(id, body, _ string) {
			set, err := result.Decode(s.loc+": result set "+id, []byte(body))
			if err != nil {
				bad = errors.Join(bad, err)
				return
			}
			out[id] = compare.Emulated(set)
		})
	if err != nil {
		return nil, err
	}
	return out, bad
}

// parseParams reads the parameters of a benchmark, kept as a JSON object.
func parseParams(s string) map[string]string {
	p := map[string]string{}
	json.Unmarshal([]byte(s), &p)
	return p
}

func hasParams(p, want map[string]string) bool {
	for k, v := range want {
		if p[k] != v {
			return false
		}
	}
	return true
}
