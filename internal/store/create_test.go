package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// createEnv names, in a child of TestConcurrentProcessesCreate, the store
// the child opens and saves a set in.
const createEnv = "KDELTA_TEST_CREATE_STORE"

// TestConcurrentProcessesCreate starts several processes (this test
// binary again) that open one new SQLite store at the same moment and
// save a set each, as agents on a fresh CI machine do: every one must
// succeed, where one used to fail with "an SQLite database that is not a
// kdelta store" (issue 35 point 12).
func TestConcurrentProcessesCreate(t *testing.T) {
	if path := os.Getenv(createEnv); path != "" {
		createChild(t, path)
		return
	}
	const n, rounds = 8, 4
	for round := 0; round < rounds; round++ {
		path := filepath.Join(t.TempDir(), "kdelta.db")
		start := time.Now().Add(500 * time.Millisecond)
		cmds := make([]*exec.Cmd, n)
		outs := make([]*strings.Builder, n)
		for i := range cmds {
			cmds[i] = exec.Command(os.Args[0], "-test.run=^TestConcurrentProcessesCreate$", "-test.count=1")
			cmds[i].Env = append(os.Environ(), createEnv+"="+path, fmt.Sprintf("KDELTA_TEST_CREATE_AT=%d", start.UnixNano()), fmt.Sprintf("KDELTA_TEST_CREATE_ID=r%dp%d", round, i))
			outs[i] = new(strings.Builder)
			cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("round %d, process %d: %v:\n%s", round, i, err, outs[i])
			}
		}
		st := mustOpen(t, path)
		infos, err := st.List(context.Background(), Filter{})
		if err != nil || len(infos) != n {
			t.Errorf("round %d: %d sets in the store, want %d (%v)", round, len(infos), n, err)
		}
		st.Close()
		// Nothing of the losers' temporary stores is left beside it.
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".kdelta.db.new-*")); len(left) > 0 {
			t.Errorf("round %d: temporary files left: %v", round, left)
		}
	}
}

// createChild is one process of TestConcurrentProcessesCreate: it waits
// for the common start, opens the store and saves a set.
func createChild(t *testing.T, path string) {
	var at int64
	fmt.Sscan(os.Getenv("KDELTA_TEST_CREATE_AT"), &at)
	time.Sleep(time.Until(time.Unix(0, at)))
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := synth{id: os.Getenv("KDELTA_TEST_CREATE_ID"), created: t0, workload: "kill", runs: 5, centre: 1, seed: 1}.set()
	if err := st.Save(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}
