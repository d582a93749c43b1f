package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/store"
)

// TestSIGKILLLeavesStoreConsistent kills a real kdelta run with SIGKILL
// while it records run after run, then opens the store: it must open, the
// set must be there, incomplete, with every run the result file (written
// just after the store, after every run) holds, and its rows must agree
// with its JSON.
func TestSIGKILLLeavesStoreConsistent(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kdelta.db")
	file := filepath.Join(dir, "f.json")
	cmd, mark := startMarked(t, "run", "pipe:loops=20000", "syscall:calls=20000", "-r", "20", "--store", db, "-o", file)
	waitRuns(t, file, 5)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitNoSurvivors(t, mark, cmd.Process.Pid)

	fromFile, err := result.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatalf("store after SIGKILL: %v", err)
	}
	defer st.Close()
	infos, err := st.List(ctx, store.Filter{})
	if err != nil || len(infos) != 1 {
		t.Fatalf("List after SIGKILL: %v %v", infos, err)
	}
	in := infos[0]
	if in.ID != fromFile.ID || in.Complete {
		t.Errorf("stored set %s complete=%v, want %s incomplete", in.ID, in.Complete, fromFile.ID)
	}
	set, err := st.Get(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The store is written before the file, so it holds at least the
	// file's runs, and the same ones.
	measured := func(s *result.Set) int {
		n := 0
		for _, b := range s.Benchmarks {
			n += len(b.Measured())
		}
		return n
	}
	if measured(set) < measured(fromFile) || okRuns(set) < 5 {
		t.Errorf("store holds %d measured runs, the file %d", measured(set), measured(fromFile))
	}
	for bi, b := range fromFile.Benchmarks {
		for ri, r := range b.Runs {
			a, _ := json.Marshal(r)
			c, _ := json.Marshal(set.Benchmarks[bi].Runs[ri])
			if string(a) != string(c) {
				t.Errorf("benchmark %d run %d differs between file and store:\n%s\n%s", bi, ri, a, c)
			}
		}
	}
	// The rows agree with the JSON: the same measured runs, and the same
	// values, as history reads them.
	if in.Runs != measured(set) {
		t.Errorf("rows count %d measured runs, the JSON %d", in.Runs, measured(set))
	}
	for _, b := range set.Benchmarks {
		sm, err := st.Samples(ctx, store.SampleQuery{Workload: b.Workload})
		if err != nil || len(sm) != 1 {
			t.Fatalf("Samples %s: %v %v", b.Workload, sm, err)
		}
		want := b.Values(b.Metrics[0].Name)
		if len(sm[0].Values) != len(want) {
			t.Errorf("%s: %d values in rows, %d in JSON", b.Workload, len(sm[0].Values), len(want))
		}
	}
}
