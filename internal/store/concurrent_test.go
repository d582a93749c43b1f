package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestConcurrentOpenAndSave opens a new store from several connections at
// once, as kdelta processes started together on a fresh machine do, and
// saves from all of them: every open and every save must succeed.
func TestConcurrentOpenAndSave(t *testing.T) {
	forEachBackend(t, func(t *testing.T, loc string) {
		for round := 0; round < 2; round++ {
			path := loc
			if !IsPostgres(loc) {
				path = filepath.Join(t.TempDir(), "kdelta.db")
			} else if round > 0 {
				path = pgBackend.newLoc(t)
			}
			concurrentRound(t, path, round)
		}
	})
}

// concurrentRound opens the new store at path n times at once and saves a
// set through each.
func concurrentRound(t *testing.T, path string, round int) {
	const n = 6
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st, err := Open(context.Background(), path)
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			s := synth{id: fmt.Sprintf("set%d", i), created: t0.Add(time.Duration(i) * time.Second), workload: "kill", runs: 20, centre: 1, seed: uint64(i)}.set()
			if err := st.Save(context.Background(), s); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("round %d: %v", round, err)
	}
	st := mustOpen(t, path)
	if infos, err := st.List(context.Background(), Filter{}); err != nil || len(infos) != n {
		t.Errorf("round %d: %d sets, want %d (%v)", round, len(infos), n, err)
	}
}
