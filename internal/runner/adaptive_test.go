package runner_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
)

// TestRunUntil runs two benchmarks, asks for more runs of the first only
// until it has 5, and checks the batches, the cap, the interleaving of the
// added runs and the saved file.
func TestRunUntil(t *testing.T) {
	tests := []struct {
		name      string
		batch     int
		maxRuns   int
		wantRuns  [2]int // measured runs of each benchmark
		wantAsked int
	}{
		// 2 first, then 1 at a time: asked at 2, 3, 4 and 5.
		{"one at a time", 1, 10, [2]int{5, 2}, 4},
		// 2 first, then batches of 2: asked at 2, 4 and 6.
		{"batches", 2, 10, [2]int{6, 2}, 3},
		// The cap stops it at 4 whatever More says.
		{"cap", 1, 4, [2]int{4, 2}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			opt := &runner.Options{Repeat: 2, Warmup: 1, Output: path, Version: "test"}
			asked := 0
			until := runner.Until{
				Batch:   tt.batch,
				MaxRuns: tt.maxRuns,
				More: func(set *result.Set) []bool {
					asked++
					if set.Complete && asked > 1 {
						t.Errorf("set marked complete while runs are being added")
					}
					return []bool{len(set.Benchmarks[0].Measured()) < 5, false}
				},
			}
			set, err := runner.RunUntil(context.Background(), specs(t, "syscall:calls=1000", "syscall:calls=2000"), opt, until)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range set.Benchmarks {
				if n := len(b.Measured()); n != tt.wantRuns[i] {
					t.Errorf("benchmark %d: %d measured runs, want %d", i, n, tt.wantRuns[i])
				}
				for k, r := range b.Runs[1:] {
					if r.Index != k || r.Warmup {
						t.Errorf("benchmark %d: run %d has index %d (warm-up %v)", i, k, r.Index, r.Warmup)
					}
				}
			}
			if asked != tt.wantAsked {
				t.Errorf("More asked %d times, want %d", asked, tt.wantAsked)
			}
			saved, err := result.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if !saved.Complete || len(saved.Benchmarks[0].Measured()) != tt.wantRuns[0] {
				t.Errorf("saved set: complete %v, %d runs of the first benchmark", saved.Complete, len(saved.Benchmarks[0].Measured()))
			}
		})
	}
}

// TestRunUntilInterrupted checks that a cancelled session stops adding
// runs, keeps what it finished and says it was interrupted.
func TestRunUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := &runner.Options{Repeat: 1, Version: "test"}
	until := runner.Until{MaxRuns: 100, More: func(set *result.Set) []bool {
		if len(set.Benchmarks[0].Measured()) == 3 {
			cancel()
		}
		return []bool{true}
	}}
	set, err := runner.RunUntil(ctx, specs(t, "syscall:calls=1000"), opt, until)
	if err != runner.ErrInterrupted {
		t.Fatalf("error %v, want %v", err, runner.ErrInterrupted)
	}
	if n := len(set.Benchmarks[0].Measured()); n != 3 || set.Complete {
		t.Errorf("%d runs kept, complete %v; want 3, false", n, set.Complete)
	}
}
