package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/sysinfo"
)

func jsonOf(t *testing.T, s *result.Set) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testSets are three sets on two kernels, one with an environment.
func testSets() []*result.Set {
	a := synth{id: "20260701T120000-aaaa01", created: t0, labels: map[string]string{"kernel": "6.15", "host": "p10"},
		workload: "kill", runs: 5, warmups: 1, failed: 1, centre: 100000, cv: 0.01, seed: 1}.set()
	a.Env = &sysinfo.Fingerprint{}
	a.Env.Kernel.Release = sysinfo.Fact{Value: "6.15.0-0.rc6.51.eln148.ppc64le", Source: "/proc/sys/kernel/osrelease"}
	b := synth{id: "20260702T120000-bbbb02", created: t0.Add(24 * time.Hour), labels: map[string]string{"kernel": "6.16", "host": "p10"},
		workload: "kill", runs: 4, centre: 70000, cv: 0.01, seed: 2}.set()
	c := synth{id: "20260703T120000-aaaa03", created: t0.Add(48 * time.Hour), labels: map[string]string{"kernel": "6.16", "host": "x86"},
		workload: "pipe", params: map[string]string{"mode": "thread", "loops": "20000"}, runs: 3, centre: 9, cv: 0.02, seed: 3,
		metric: result.Metric{Name: "latency", Unit: "us", Better: result.Lower}}.set()
	return []*result.Set{a, b, c}
}

func TestStoreSuite(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
		sets := testSets()
		for _, s := range sets {
			if err := st.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		// Get returns the set as saved, to the byte.
		for _, s := range sets {
			got, err := st.Get(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if jsonOf(t, got) != jsonOf(t, s) {
				t.Errorf("Get(%s) differs from what was saved:\n got %s\nwant %s", s.ID, jsonOf(t, got), jsonOf(t, s))
			}
		}
		if _, err := st.Get(ctx, "nosuch"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(nosuch): %v, want ErrNotFound", err)
		}

		ids := func(f Filter) []string {
			t.Helper()
			infos, err := st.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, in := range infos {
				ids = append(ids, in.ID[len(in.ID)-2:])
			}
			return ids
		}
		lists := []struct {
			name string
			f    Filter
			want []string
		}{
			{"all, oldest first", Filter{}, []string{"01", "02", "03"}},
			{"label", Filter{Labels: []Label{{"kernel", "6.16"}}}, []string{"02", "03"}},
			{"two labels", Filter{Labels: []Label{{"kernel", "6.16"}, {"host", "p10"}}}, []string{"02"}},
			{"no match", Filter{Labels: []Label{{"kernel", "6.17"}}}, nil},
			{"workload", Filter{Workload: "kill"}, []string{"01", "02"}},
			{"workload and label", Filter{Workload: "pipe", Labels: []Label{{"host", "x86"}}}, []string{"03"}},
			{"id prefix", Filter{IDPrefix: "20260703"}, []string{"03"}},
			{"id prefix is not a pattern", Filter{IDPrefix: "2026070_"}, nil},
		}
		for _, tt := range lists {
			if got := ids(tt.f); !slices.Equal(got, tt.want) {
				t.Errorf("List %s: %v, want %v", tt.name, got, tt.want)
			}
		}

		infos, err := st.List(ctx, Filter{IDPrefix: sets[0].ID})
		if err != nil || len(infos) != 1 {
			t.Fatalf("List by id: %v %v", infos, err)
		}
		in := infos[0]
		want := Info{
			ID: sets[0].ID, Created: t0, Updated: in.Updated, Labels: map[string]string{"kernel": "6.15", "host": "p10"},
			Kernel: "6.15.0-0.rc6.51.eln148.ppc64le", Tool: "kdelta test", Workload: []string{"kill"}, Runs: 5, Complete: true,
		}
		if !reflect.DeepEqual(in, want) {
			t.Errorf("Info:\n got %+v\nwant %+v", in, want)
		}
		if in.Updated.Before(t0) {
			t.Errorf("Updated %v before Created", in.Updated)
		}
		// Without a fingerprint the kernel is the label's.
		if infos, _ := st.List(ctx, Filter{IDPrefix: sets[1].ID}); infos[0].Kernel != "6.16" {
			t.Errorf("kernel of a set without env: %q, want the label 6.16", infos[0].Kernel)
		}

		// Tag adds, changes and removes labels, in the set and its rows.
		if err := st.Tag(ctx, sets[1].ID, "preempt", "lazy"); err != nil {
			t.Fatal(err)
		}
		if err := st.Tag(ctx, sets[1].ID, "host", "p11"); err != nil {
			t.Fatal(err)
		}
		if err := st.Tag(ctx, sets[1].ID, "kernel", ""); err != nil {
			t.Fatal(err)
		}
		got, _ := st.Get(ctx, sets[1].ID)
		if wantL := map[string]string{"preempt": "lazy", "host": "p11"}; !reflect.DeepEqual(got.Labels, wantL) {
			t.Errorf("labels after Tag: %v, want %v", got.Labels, wantL)
		}
		if got := ids(Filter{Labels: []Label{{"preempt", "lazy"}, {"host", "p11"}}}); !slices.Equal(got, []string{"02"}) {
			t.Errorf("List by new labels: %v", got)
		}
		if got := ids(Filter{Labels: []Label{{"kernel", "6.16"}}}); !slices.Equal(got, []string{"03"}) {
			t.Errorf("List by removed label: %v", got)
		}
		if err := st.Tag(ctx, "nosuch", "a", "b"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Tag(nosuch): %v, want ErrNotFound", err)
		}

		// Delete removes the set and its rows, and only its.
		if err := st.Delete(ctx, sets[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, sets[0].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		if err := st.Delete(ctx, sets[0].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("second Delete: %v, want ErrNotFound", err)
		}
		if got := ids(Filter{}); !slices.Equal(got, []string{"02", "03"}) {
			t.Errorf("List after Delete: %v", got)
		}
		sm, err := st.Samples(ctx, SampleQuery{Workload: "kill"})
		if err != nil || len(sm) != 1 || sm[0].SetID != sets[1].ID {
			t.Errorf("Samples after Delete: %+v %v", sm, err)
		}
		if sql, ok := st.(*sqlStore); ok {
			for _, table := range []string{"labels", "benchmarks", "metrics", "runs", "run_values"} {
				var n int
				sql.db.QueryRow(sql.rebind("SELECT COUNT(*) FROM "+table+" WHERE set_id = ?"), sets[0].ID).Scan(&n)
				if n != 0 {
					t.Errorf("%d rows of the deleted set left in %s", n, table)
				}
			}
		}
	})
}

func TestSamples(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
		sets := testSets()
		// A second pipe benchmark with other parameters in the same set.
		extra := synth{workload: "pipe", params: map[string]string{"mode": "process", "loops": "20000"}, runs: 2, centre: 12, cv: 0.02, seed: 4,
			metric: result.Metric{Name: "latency", Unit: "us", Better: result.Lower}}.set()
		sets[2].Benchmarks = append(sets[2].Benchmarks, extra.Benchmarks[0])
		for _, s := range sets {
			if err := st.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name    string
			q       SampleQuery
			sets    []string
			n       []int
			metric  string
			nilWant bool
		}{
			{"primary metric, warm-ups and failures left out", SampleQuery{Workload: "kill"}, []string{"01", "02"}, []int{5, 4}, "calls/s", false},
			{"named metric", SampleQuery{Workload: "kill", Metric: "elapsed"}, []string{"01", "02"}, []int{5, 4}, "elapsed", false},
			{"label", SampleQuery{Workload: "kill", Labels: []Label{{"kernel", "6.16"}}}, []string{"02"}, []int{4}, "calls/s", false},
			{"two benchmarks of one set", SampleQuery{Workload: "pipe"}, []string{"03", "03"}, []int{3, 2}, "latency", false},
			{"parameters", SampleQuery{Workload: "pipe", Params: map[string]string{"mode": "process"}}, []string{"03"}, []int{2}, "latency", false},
			{"unknown metric", SampleQuery{Workload: "kill", Metric: "nosuch"}, nil, nil, "", true},
			{"unknown workload", SampleQuery{Workload: "nosuch"}, nil, nil, "", true},
		}
		for _, tt := range tests {
			got, err := st.Samples(ctx, tt.q)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			var ids []string
			var ns []int
			for _, s := range got {
				ids = append(ids, s.SetID[len(s.SetID)-2:])
				ns = append(ns, len(s.Values))
				if s.Metric.Name != tt.metric {
					t.Errorf("%s: metric %q, want %q", tt.name, s.Metric.Name, tt.metric)
				}
			}
			if !slices.Equal(ids, tt.sets) || !slices.Equal(ns, tt.n) {
				t.Errorf("%s: sets %v with %v values, want %v with %v", tt.name, ids, ns, tt.sets, tt.n)
			}
		}
		// Values come in run order, exactly as saved.
		got, _ := st.Samples(ctx, SampleQuery{Workload: "kill", Labels: []Label{{"kernel", "6.15"}}})
		want := sets[0].Benchmarks[0].Values("calls/s")
		if len(got) != 1 || !slices.Equal(got[0].Values, want) {
			t.Errorf("values %v, want %v", got, want)
		}
		if got[0].Labels["host"] != "p10" || got[0].Metric.Better != result.Higher || !got[0].Created.Equal(t0) {
			t.Errorf("sample %+v", got[0])
		}
	})
}

// TestSaveRunByRun saves a set after every run, as kdelta run does, and
// checks that each save replaces the last.
func TestSaveRunByRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
		full := synth{id: "20260701T120000-cafe00", created: t0, labels: map[string]string{"kernel": "6.18"},
			workload: "kill", runs: 6, centre: 72552, cv: 0.01, seed: 9}.set()
		runs := full.Benchmarks[0].Runs
		set := *full
		b := *full.Benchmarks[0]
		set.Benchmarks = []*result.Benchmark{&b}
		set.Complete = false
		for i := 0; i <= len(runs); i++ {
			b.Runs = runs[:i]
			set.Complete = i == len(runs)
			if err := st.Save(ctx, &set); err != nil {
				t.Fatal(err)
			}
			infos, err := st.List(ctx, Filter{})
			if err != nil || len(infos) != 1 {
				t.Fatalf("after %d runs: %v %v", i, infos, err)
			}
			if infos[0].Runs != i || infos[0].Complete != (i == len(runs)) {
				t.Errorf("after %d runs: Info says %d runs, complete %v", i, infos[0].Runs, infos[0].Complete)
			}
		}
		got, _ := st.Get(ctx, full.ID)
		if jsonOf(t, got) != jsonOf(t, full) {
			t.Errorf("final set differs")
		}
	})
}

// saveV1 writes a set as the schema of version 1 holds it: no
// sets.updated column.
func saveV1(t *testing.T, st Store, s *result.Set) {
	t.Helper()
	ss := st.(*sqlStore)
	body, _ := json.Marshal(s)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := ss.db.Exec(ss.rebind(q), args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("INSERT INTO sets (id, created, tool, kernel, complete, body) VALUES (?, ?, ?, ?, ?, ?)",
		s.ID, s.Created.UnixNano(), s.Tool, s.Labels["kernel"], 1, string(body))
	for k, v := range s.Labels {
		exec("INSERT INTO labels (set_id, name, value) VALUES (?, ?, ?)", s.ID, k, v)
	}
	for bi, b := range s.Benchmarks {
		params, _ := json.Marshal(b.Params)
		exec("INSERT INTO benchmarks (set_id, bench, workload, params, skipped) VALUES (?, ?, ?, ?, ?)", s.ID, bi, b.Workload, string(params), "")
		for mi, m := range b.Metrics {
			exec("INSERT INTO metrics (set_id, bench, pos, name, unit, better) VALUES (?, ?, ?, ?, ?, ?)", s.ID, bi, mi, m.Name, m.Unit, string(m.Better))
		}
		for ri, r := range b.Runs {
			exec("INSERT INTO runs (set_id, bench, pos, run, warmup, status, start, wall_s, user_s, sys_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				s.ID, bi, ri, r.Index, flag(r.Warmup), r.Status, r.Start.UnixNano(), r.WallSec, r.UserSec, r.SysSec)
			for k, v := range r.Values {
				exec("INSERT INTO run_values (set_id, bench, pos, metric, value) VALUES (?, ?, ?, ?, ?)", s.ID, bi, ri, k, v)
			}
		}
	}
}

// TestMigrateFromV1 fills a store at schema version 1, opens it with this
// kdelta (which upgrades it) and checks that every set reads back.
func TestMigrateFromV1(t *testing.T) {
	if SchemaVersion < 2 {
		t.Fatalf("SchemaVersion %d: the upgrade test needs at least two versions", SchemaVersion)
	}
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		old, err := openAt(ctx, loc, 1)
		if err != nil {
			t.Fatal(err)
		}
		if v, _, _ := appliedVersion(ctx, old.(*sqlStore).db, old.(*sqlStore).pg); v != 1 {
			t.Fatalf("schema version %d after opening at 1", v)
		}
		sets := testSets()
		for _, s := range sets {
			saveV1(t, old, s)
		}
		old.Close()

		st := mustOpen(t, loc)
		if v, _, _ := appliedVersion(ctx, st.(*sqlStore).db, st.(*sqlStore).pg); v != SchemaVersion {
			t.Fatalf("schema version %d after upgrade, want %d", v, SchemaVersion)
		}
		for _, s := range sets {
			got, err := st.Get(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if jsonOf(t, got) != jsonOf(t, s) {
				t.Errorf("set %s changed in the upgrade", s.ID)
			}
		}
		infos, err := st.List(ctx, Filter{Labels: []Label{{"kernel", "6.16"}}})
		if err != nil || len(infos) != 2 {
			t.Fatalf("List after upgrade: %v %v", infos, err)
		}
		// Version 2 fills updated from created for sets written before it.
		for _, in := range infos {
			if !in.Updated.Equal(in.Created) {
				t.Errorf("%s: updated %v, want created %v", in.ID, in.Updated, in.Created)
			}
		}
		sm, err := st.Samples(ctx, SampleQuery{Workload: "kill"})
		if err != nil || len(sm) != 2 || len(sm[0].Values) != 5 {
			t.Errorf("Samples after upgrade: %+v %v", sm, err)
		}
		// And the upgraded store takes new sets, and session noises
		// (version 3).
		if err := st.Save(ctx, synth{id: "new", created: t0, workload: "kill", runs: 1, centre: 1, seed: 5}.set()); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveNoise(ctx, Noise{Key: NoiseKey{Host: "h", Workload: "kill", Metric: "bogo-ops/s"}, Noise: stats.SessionNoise{SD: 0.02, DF: 3}}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestNewerSchemaRefused checks that a store written by a newer kdelta is
// refused with a clear message and left as it was.
func TestNewerSchemaRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st, err := Open(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		st.Save(ctx, testSets()[0])
		ss := st.(*sqlStore)
		if _, err := ss.db.Exec(ss.rebind("INSERT INTO "+versionTable+" (version_id, is_applied) VALUES (?, ?)"), SchemaVersion+7, true); err != nil {
			t.Fatal(err)
		}
		st.Close()
		before := snapshot(t, loc)
		_, err = Open(ctx, loc)
		if err == nil {
			t.Fatal("a store with a newer schema was opened")
		}
		newer := fmt.Sprintf("schema version %d is newer than this kdelta knows (%d)", SchemaVersion+7, SchemaVersion)
		for _, want := range []string{newer, "left untouched"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if after := snapshot(t, loc); after != before {
			t.Errorf("the refused store changed:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// snapshot describes a store's content, to tell whether it changed: the
// bytes of an SQLite file and its neighbours, or the migration record and
// the sets of a PostgreSQL schema.
func snapshot(t *testing.T, loc string) string {
	t.Helper()
	if !IsPostgres(loc) {
		return dirSnapshot(t, filepath.Dir(loc))
	}
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range []string{
		"SELECT version_id || ':' || is_applied FROM " + versionTable + " ORDER BY id",
		"SELECT id || ':' || updated || ':' || md5(body) FROM sets ORDER BY id",
		"SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			b.WriteString(s + " ")
		}
		rows.Close()
		b.WriteString("| ")
	}
	return b.String()
}

func dirSnapshot(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fi, _ := e.Info()
		fmt.Fprintf(&b, "%s (%d bytes, sha256 %x, modified %s)\n", e.Name(), len(data), sha256.Sum256(data), fi.ModTime())
	}
	return b.String()
}

// TestCorruptFileRefused checks that a file that is not a kdelta store is
// refused with a clear message and left as it was, with nothing created
// beside it.
func TestCorruptFileRefused(t *testing.T) {
	otherDB := func(path string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE mine (x INTEGER); INSERT INTO mine VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	tests := []struct {
		name  string
		write func(path string)
		want  string
	}{
		{"garbage", func(p string) { os.WriteFile(p, []byte("this is not a database, just some text\n"), 0o644) }, "not a kdelta store (not an SQLite database)"},
		{"a few bytes", func(p string) { os.WriteFile(p, []byte("SQL"), 0o644) }, "not a kdelta store (not an SQLite database)"},
		{"header then garbage", func(p string) {
			os.WriteFile(p, append([]byte(sqliteHeader), bytes.Repeat([]byte{0xa5}, 4096)...), 0o644)
		}, "unreadable SQLite database"},
		{"truncated store", func(p string) {
			st, err := Open(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			st.Save(context.Background(), testSets()[0])
			st.Close()
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:200], 0o644)
			os.Remove(p + "-wal")
			os.Remove(p + "-shm")
		}, "unreadable SQLite database"},
		{"another program's database", otherDB, "an SQLite database that is not a kdelta store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kdelta.db")
			tt.write(path)
			before := dirSnapshot(t, filepath.Dir(path))
			_, err := Open(context.Background(), path)
			if err == nil {
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "left untouched") {
				t.Errorf("error %q, want it to name %s and say %q and left untouched", err, path, tt.want)
			}
			if after := dirSnapshot(t, filepath.Dir(path)); after != before {
				t.Errorf("the refused file or its directory changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestOpenCreates checks that the default location follows XDG_DATA_HOME
// and that its directory is made.
func TestOpenCreates(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	p, err := DefaultPath()
	if err != nil || p != filepath.Join(dir, "kdelta", "kdelta.db") {
		t.Fatalf("DefaultPath = %q, %v", p, err)
	}
	st, err := Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Location() != p {
		t.Errorf("Location %q, want %q", st.Location(), p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
	// A path with characters that SQLite URIs treat as syntax.
	odd := filepath.Join(dir, "a?b#c%d", "k.db")
	st2, err := Open(context.Background(), odd)
	if err != nil {
		t.Fatal(err)
	}
	st2.Close()
	if _, err := os.Stat(odd); err != nil {
		t.Error(err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", dir)
	if p, _ := DefaultPath(); p != filepath.Join(dir, ".local", "share", "kdelta", "kdelta.db") {
		t.Errorf("DefaultPath without XDG_DATA_HOME = %q", p)
	}
}

// TestSessionNoise saves, replaces, finds and lists session noises on
// every backend, and refuses an unknown key with ErrNotFound.
func TestSessionNoise(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		st := mustOpen(t, loc)
		key := NoiseKey{Host: "p10", Workload: "syscall", Params: "calls=1000", Conditions: "cpus=0 policy=SCHED_OTHER", Metric: "ns/call"}
		first := Noise{Key: key, Noise: stats.SessionNoise{SD: 0.05, MeanSD: 0.051, Runs: 8, DF: 4}, Measured: t0}
		if err := st.SaveNoise(ctx, first); err != nil {
			t.Fatal(err)
		}
		// A newer calibration of the same key replaces the older.
		second := first
		second.Noise, second.Measured = stats.SessionNoise{SD: 0.063, MeanSD: 0.064, Runs: 8, DF: 9}, t0.Add(time.Hour)
		if err := st.SaveNoise(ctx, second); err != nil {
			t.Fatal(err)
		}
		other := Noise{Key: NoiseKey{Host: "x86", Workload: "pipe", Metric: "usecs/op"}, Noise: stats.SessionNoise{SD: 0.01, DF: 2}, Measured: t0}
		if err := st.SaveNoise(ctx, other); err != nil {
			t.Fatal(err)
		}
		got, err := st.Noise(ctx, key)
		if err != nil || got != second {
			t.Errorf("Noise: %+v, %v; want %+v", got, err, second)
		}
		missing := key
		missing.Conditions = "cpus=1"
		if _, err := st.Noise(ctx, missing); !errors.Is(err, ErrNotFound) {
			t.Errorf("another key: %v, want ErrNotFound", err)
		}
		if all, err := st.Noises(ctx, ""); err != nil || len(all) != 2 || all[0] != second || all[1] != other {
			t.Errorf("Noises: %+v, %v", all, err)
		}
		if ns, err := st.Noises(ctx, "x86"); err != nil || len(ns) != 1 || ns[0] != other {
			t.Errorf("Noises(x86): %+v, %v", ns, err)
		}
	})
}
