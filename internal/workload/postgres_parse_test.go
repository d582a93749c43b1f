package workload

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "postgres", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParsePgbench(t *testing.T) {
	for _, tt := range []struct {
		file string
		want pgbenchSummary
	}{
		{"pgbench-15-tpcb-like.txt", pgbenchSummary{Version: "15.18 (Debian 15.18-0+deb12u1)", TPS: 1938.836207, Transactions: 3869, LatencyAvg: 1.032}},
		{"pgbench-15-select-only.txt", pgbenchSummary{Version: "15.18 (Debian 15.18-0+deb12u1)", TPS: 27610.779118, Transactions: 55098, LatencyAvg: 0.072}},
		// Before 14: two tps lines, the one without connections is taken.
		{"pgbench-13-tpcb-like.txt", pgbenchSummary{TPS: 1562.789447, Transactions: 3125, LatencyAvg: 1.281}},
	} {
		got, err := parsePgbench(readFixture(t, tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, tt.want)
		}
	}
	for _, bad := range []string{"", "pgbench: error: connection to server failed\n", "tps = 12 (without initial connection time)\n", "tps = x\nnumber of transactions actually processed: 3\n"} {
		if _, err := parsePgbench(bad); err == nil {
			t.Errorf("parsePgbench(%q) gave no error", bad)
		}
	}
}

func TestReadPgbenchLog(t *testing.T) {
	lat, other, err := readPgbenchLog(strings.NewReader(readFixture(t, "pgbench-15.log")), nil)
	if err != nil || other != 0 {
		t.Fatalf("fixture: %v, %d lines without latency", err, other)
	}
	if want := []float64{11.241, 0.332, 0.384, 0.204, 0.245}; len(lat) != len(want) {
		t.Fatalf("latencies %v, want %v", lat, want)
	} else {
		for i := range want {
			if math.Abs(lat[i]-want[i]) > 1e-12 {
				t.Errorf("latency %d = %v ms, want %v", i, lat[i], want[i])
			}
		}
	}
	// A failed or skipped transaction has no latency; schedule lag and
	// retries may follow.
	lat, other, err = readPgbenchLog(strings.NewReader("0 1 250 0 1796122692 901853 12 0\n1 7 failed 0 1796122692 901900\n1 8 skipped 0 1796122692 901950 3\n"), []float64{1})
	if err != nil || other != 2 || len(lat) != 2 || lat[1] != 0.25 {
		t.Errorf("got %v, %d other, %v; want [1 0.25], 2 other", lat, other, err)
	}
	for _, bad := range []string{"0 1 250\n", "0 1 2.5e3 0 1 2\n", "0 1 -4 0 1 2\n"} {
		if _, _, err := readPgbenchLog(strings.NewReader(bad), nil); err == nil {
			t.Errorf("readPgbenchLog(%q) gave no error", bad)
		}
	}
}

func TestParseSysbench(t *testing.T) {
	r, err := parseSysbench(readFixture(t, "sysbench-1.0.20-point_select.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "1.0.20" || r.Transactions != 97099 || r.TPS != 48455.37 || r.Queries != 97099 ||
		r.Errors != 0 || r.Events != 97099 || r.Min != 0.01 || r.Max != 41.99 || r.LatencySum != 3979.77 || r.P99 != 0.25 {
		t.Errorf("report %+v", r)
	}
	if len(r.Hist.value) != 396 {
		t.Errorf("%d histogram buckets, want 396", len(r.Hist.value))
	}
	// The histogram's 99th percentile is the one sysbench printed.
	if p := r.Hist.percentile(99); math.Abs(p-r.P99) > 0.01 {
		t.Errorf("histogram p99 = %v ms, sysbench says %v", p, r.P99)
	}
	if p50, p95 := r.Hist.percentile(50), r.Hist.percentile(95); !(p50 <= p95 && p95 <= r.P99) {
		t.Errorf("p50 %v, p95 %v, p99 %v not in order", p50, p95, r.P99)
	}
	for _, bad := range []string{"", "FATAL: connection to server failed\n",
		strings.Replace(readFixture(t, "sysbench-1.0.20-point_select.txt"), "Latency histogram", "Latency", 1)} {
		if _, err := parseSysbench(bad); err == nil {
			t.Errorf("parseSysbench of %d bytes gave no error", len(bad))
		}
	}
}

func FuzzParsePgbench(f *testing.F) {
	for _, n := range []string{"pgbench-15-tpcb-like.txt", "pgbench-15-select-only.txt", "pgbench-13-tpcb-like.txt"} {
		f.Add(readFixture(f, n))
	}
	f.Fuzz(func(t *testing.T, s string) { parsePgbench(s) })
}

func FuzzReadPgbenchLog(f *testing.F) {
	f.Add(readFixture(f, "pgbench-15.log"))
	f.Add("1 7 failed 0 1796122692 901900\n")
	f.Fuzz(func(t *testing.T, s string) {
		lat, _, err := readPgbenchLog(strings.NewReader(s), nil)
		for _, l := range lat {
			if err == nil && (l < 0 || math.IsNaN(l)) {
				t.Fatalf("latency %v from %q", l, s)
			}
		}
	})
}

func FuzzParseSysbench(f *testing.F) {
	f.Add(readFixture(f, "sysbench-1.0.20-point_select.txt"))
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseSysbench(s)
		if err == nil {
			// What the run computes from a report must not panic.
			r.Hist.percentile(99)
			r.Hist.summary(r.Min, r.Max, r.LatencySum/r.Events)
		}
	})
}

func TestReadPostmasterPID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "postmaster.pid")
	os.WriteFile(path, []byte("22804\n/tmp/x/data\n1796122340\n5432\n/tmp/x\n\n 10143220        14\nready   \n"), 0o600)
	if pid, shmid := readPostmasterPID(path); pid != 22804 || shmid != 14 {
		t.Errorf("pid %d, shmid %d; want 22804, 14", pid, shmid)
	}
	if pid, shmid := readPostmasterPID(filepath.Join(dir, "none")); pid != -1 || shmid != -1 {
		t.Errorf("missing file: pid %d, shmid %d; want -1, -1", pid, shmid)
	}
}

// TestPGCleanup checks that the reaper's cleanup kills what still works in
// the directory and removes it, and that a directory already gone is no
// error.
func TestPGCleanup(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "run", "data")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	cmd.Dir = sub
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	if err := pgCleanup(filepath.Join(dir, "run")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the process working in the directory survived its cleanup")
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); !os.IsNotExist(err) {
		t.Errorf("directory left: %v", err)
	}
	if err := pgCleanup(filepath.Join(dir, "run")); err != nil {
		t.Errorf("cleanup of a removed directory: %v", err)
	}
}

func TestPostgresValidate(t *testing.T) {
	for _, tt := range []struct {
		w    Workload
		spec map[string]string
		want string
	}{
		{pgbenchRun{}, map[string]string{"duration": "1500ms"}, "whole seconds"},
		{pgbenchRun{}, map[string]string{"duration": "0s"}, "at least 1s"},
		{pgbenchRun{}, map[string]string{"jobs": "4", "clients": "2"}, "jobs=4 is more than clients=2"},
		{pgbenchRun{}, map[string]string{"clients": "100"}, "max_connections ≥ 101"},
		{pgbenchRun{}, map[string]string{"shared_buffers": "lots"}, "shared_buffers"},
		{sysbenchRun{}, map[string]string{"threads": "8", "max_connections": "8"}, "threads=8 needs max_connections ≥ 9"},
	} {
		_, err := Resolve(tt.w, tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %v: error %v, want one with %q", tt.w.Name(), tt.spec, err, tt.want)
		}
	}
	for _, w := range []Workload{pgbenchRun{}, sysbenchRun{}} {
		if _, err := Resolve(w, nil); err != nil {
			t.Errorf("%s defaults: %v", w.Name(), err)
		}
	}
}

func TestPostgresWarmup(t *testing.T) {
	v, _ := Resolve(pgbenchRun{}, map[string]string{"duration": "30s"})
	if w := (pgbenchRun{}).WarmupValues(v); w.Duration("duration") != 5*time.Second || v.Duration("duration") != 30*time.Second {
		t.Errorf("warm-up duration %v (run's %v), want 5s (30s)", w.Duration("duration"), v.Duration("duration"))
	}
	v, _ = Resolve(sysbenchRun{}, map[string]string{"duration": "2s"})
	if w := (sysbenchRun{}).WarmupValues(v); w.Duration("duration") != 2*time.Second {
		t.Errorf("warm-up of a 2s run lasts %v", w.Duration("duration"))
	}
}

// TestPostgresSkipReasons checks that a machine without the programs
// skips both workloads with the Debian package to install.
func TestPostgresSkipReasons(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	v, _ := Resolve(pgbenchRun{}, map[string]string{"bindir": empty})
	if r := (pgbenchRun{}).Precheck(v); !strings.Contains(r, "no initdb and postgres") || !strings.Contains(r, "Debian package postgresql") {
		t.Errorf("bindir without a server: reason %q", r)
	}
	// A server without pgbench beside it, and none on PATH.
	for _, n := range []string{"initdb", "postgres"} {
		os.WriteFile(filepath.Join(empty, n), []byte("#!/bin/sh\n"), 0o755)
	}
	if r := (pgbenchRun{}).Precheck(v); !strings.Contains(r, "pgbench not installed") || !strings.Contains(r, "Debian package postgresql") {
		t.Errorf("no pgbench: reason %q", r)
	}
	v, _ = Resolve(sysbenchRun{}, map[string]string{"bindir": empty})
	if r := (sysbenchRun{}).Precheck(v); r != "sysbench not installed: install the Debian package sysbench" {
		t.Errorf("no sysbench: reason %q", r)
	}
}

// TestSearchable checks the test that the server's user can reach its
// directory: a 0700 directory is searchable by its owner only.
func TestSearchable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	uid, gid := uint32(os.Getuid()), uint32(os.Getgid())
	if err := searchable(dir, uid, gid); err != nil {
		t.Errorf("owner: %v", err)
	}
	err := searchable(dir, uid+54321, gid+54321)
	if err == nil || !strings.Contains(err.Error(), "cannot search "+dir) {
		t.Errorf("another user: %v, want cannot search %s", err, dir)
	}
}
