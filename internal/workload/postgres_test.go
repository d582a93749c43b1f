package workload_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
	"github.com/kdelta/kdelta/internal/workload"
)

// pgTempDir points TMPDIR, where the workloads make their server's
// directory, at a new directory that the server's user (postgres, when
// the tests run as root) can search, and returns it.
func pgTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kdelta-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("TMPDIR", dir)
	return dir
}

// needPostgres skips a test of spec where its workload cannot run (no
// PostgreSQL, no pgbench or sysbench), with the workload's reason.
func needPostgres(t *testing.T, spec string) workload.Spec {
	t.Helper()
	sp, err := workload.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if reason := sp.Workload.(workload.Prechecker).Precheck(sp.Values); reason != "" {
		testenv.Skipf(t, "%s: %s", spec, reason)
	}
	return sp
}

// checkNothingLeft fails t when dir holds anything (a server directory,
// its socket) or a process still works under it.
func checkNothingLeft(t *testing.T, dir string) {
	t.Helper()
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in %s: %v", dir, names)
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd")); err == nil && strings.HasPrefix(cwd, dir+"/") {
			cl, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
			t.Errorf("process %s still works in %s: %s", p.Name(), cwd, strings.ReplaceAll(string(cl), "\x00", " "))
		}
	}
}

// checkLatencies checks the latency metrics of a PostgreSQL run.
func checkLatencies(t *testing.T, rep workload.Report) {
	t.Helper()
	v := rep.Values
	if !(v["tps"] > 0 && v["lat_mean"] > 0 && v["lat_p50"] > 0 && v["lat_p50"] <= v["lat_p95"] && v["lat_p95"] <= v["lat_p99"]) {
		t.Errorf("metrics %v: want tps > 0 and 0 < p50 ≤ p95 ≤ p99", v)
	}
	if rep.Latency == nil || rep.Latency.Count == 0 || rep.Latency.Unit != "ms" {
		t.Errorf("latency summary %+v", rep.Latency)
	}
	if rep.Counts["client_ctxsw"] <= 0 {
		t.Errorf("client's context switches not counted: %v", rep.Counts)
	}
}

// TestPgbenchRuns runs pgbench end to end against its private server:
// the server's settings are those asked for, read back from it; its
// counters cover the transactions; nothing is left afterwards.
func TestPgbenchRuns(t *testing.T) {
	spec := "pgbench:scale=1,duration=2s,clients=2,jobs=2,script=simple-update,protocol=prepared,shared_buffers=32MB,max_connections=20,fsync=true"
	needPostgres(t, spec)
	tmp := pgTempDir(t)
	rep := runInProcess(t, spec)
	checkLatencies(t, rep)
	n := rep.Counts["transactions"]
	if n <= 0 || rep.Ops != n || rep.Latency.Count != int(n) {
		t.Errorf("%v transactions, %v ops, %d latencies: want the same, above 0", n, rep.Ops, rep.Latency.Count)
	}
	// Every pgbench transaction commits; kdelta's own queries add a few.
	if x := rep.Counts["xact_commit"]; x < n || x > n+100 {
		t.Errorf("pg_stat_database xact_commit %v over the run, pgbench made %v transactions", x, n)
	}
	// simple-update: one UPDATE and one INSERT per transaction.
	if rep.Counts["tup_inserted"] != n || rep.Counts["blks_hit"] <= 0 {
		t.Errorf("counts %v: want tup_inserted = transactions, blks_hit > 0", rep.Counts)
	}
	for k, want := range map[string]string{"shared_buffers": "32MB", "max_connections": "20", "fsync": "on", "server_listen": "unix socket only"} {
		if got := rep.Info[k]; got != want {
			t.Errorf("info %s = %q, want %q", k, got, want)
		}
	}
	if !strings.Contains(rep.Info["argv"], " -N ") && !strings.Contains(rep.Info["argv"], "-b simple-update") {
		t.Errorf("argv %q runs no simple-update", rep.Info["argv"])
	}
	if rep.Info["server_version"] == "" || (os.Geteuid() == 0 && rep.Info["server_user"] == "root") {
		t.Errorf("server version %q, user %q", rep.Info["server_version"], rep.Info["server_user"])
	}
	checkNothingLeft(t, tmp)
}

// TestSysbenchRuns runs sysbench's read-write test end to end.
func TestSysbenchRuns(t *testing.T) {
	spec := "sysbench:test=read_write,duration=2s,threads=2,tables=1,table_size=1000"
	needPostgres(t, spec)
	tmp := pgTempDir(t)
	rep := runInProcess(t, spec)
	checkLatencies(t, rep)
	n := rep.Counts["transactions"]
	// A read-write transaction is 20 queries: 14 reads, 4 writes, BEGIN
	// and COMMIT. sysbench counts more: the queries of the transactions
	// its 2 threads had begun when the time ran out (at most 19 each), and
	// of each one it rolled back on an error it ignores and retried
	// (seen: 1254 for 61 transactions, 292 for 13).
	if q, e := rep.Counts["queries"], rep.Counts["errors"]; n <= 0 || q < 20*n || q > 20*(n+e)+2*19 {
		t.Errorf("%v transactions, %v queries: want 20 queries each", n, q)
	}
	if x := rep.Counts["xact_commit"]; x < n {
		t.Errorf("pg_stat_database xact_commit %v, sysbench made %v transactions", x, n)
	}
	if rep.Counts["tup_updated"] <= 0 || rep.Info["sysbench_version"] == "" {
		t.Errorf("counts %v, info %v", rep.Counts, rep.Info)
	}
	checkNothingLeft(t, tmp)
}

// TestPostgresFailureCleansUp makes the server refuse to start and checks
// that the run fails with the server's own words and leaves nothing.
func TestPostgresFailureCleansUp(t *testing.T) {
	spec := "pgbench:scale=1,duration=1s,shared_buffers=8kB"
	sp := needPostgres(t, spec)
	tmp := pgTempDir(t)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- sp.Workload.Run(workload.NewTask(sp.Values, nil))
	}()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "postgres exited at start") || !strings.Contains(err.Error(), "shared_buffers") {
		t.Errorf("run with shared_buffers=8kB: %v; want the server's refusal", err)
	}
	checkNothingLeft(t, tmp)
}
