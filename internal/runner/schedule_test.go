package runner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/runner"
	"github.com/kdelta/kdelta/internal/workload"
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

// TestRunUntilSessions checks the batches that open a session: when
// Until.Sessions says so, each open benchmark gets a warm-up and a
// session's runs (Repeat, cut at MaxRuns) under a new session, the
// others none; otherwise runs stay in the session they are in.
func TestRunUntilSessions(t *testing.T) {
	tests := []struct {
		name string
		// sessions says, by the first benchmark's measured runs, whether
		// the next batch opens a session.
		sessions func(measured int) bool
		want     []int // the first benchmark's measured runs by session
	}{
		{"one new session, then runs", func(n int) bool { return n == 2 }, []int{2, 5}},
		{"sessions only", func(int) bool { return true }, []int{2, 2, 2, 1}},
		{"runs only", func(int) bool { return false }, []int{7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := &runner.Options{Repeat: 2, Warmup: 1, Version: "test"}
			until := runner.Until{
				Batch:    1,
				MaxRuns:  7,
				More:     func(set *result.Set) []bool { return []bool{len(set.Benchmarks[0].Measured()) < 7, false} },
				Sessions: func(set *result.Set) bool { return tt.sessions(len(set.Benchmarks[0].Measured())) },
			}
			set, err := runner.RunUntil(context.Background(), specs(t, "syscall:calls=1000", "syscall:calls=2000"), opt, until)
			if err != nil {
				t.Fatal(err)
			}
			b := set.Benchmarks[0]
			vals, ids := b.SessionValues("ns/call")
			var got []int
			for _, v := range vals {
				got = append(got, len(v))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("measured runs by session %v (%q), want %v", got, ids, tt.want)
			}
			// Every session starts with its warm-up, and the ids are the
			// set's, then the set's with the session's number.
			warm := map[string]bool{}
			for i, r := range b.Runs {
				if r.Warmup {
					warm[r.Session] = true
					continue
				}
				if !warm[r.Session] {
					t.Errorf("run %d (session %q) before its session's warm-up", i, r.Session)
				}
			}
			for k, id := range ids {
				want := set.ID
				if k > 0 {
					want = fmt.Sprintf("%s/%d", set.ID, k+1)
				}
				if id != want {
					t.Errorf("session %d is %q, want %q", k+1, id, want)
				}
			}
			if o := set.Benchmarks[1]; len(o.Measured()) != 2 || len(o.Runs) != 3 {
				t.Errorf("the settled benchmark has %d runs, %d measured; want its first session's 3 and 2", len(o.Runs), len(o.Measured()))
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

// TestMoreRuns drives the one "run more?" rule with the cases on which
// the three schedulers it replaced disagreed: RunUntil did not count
// skipped runs, job.Run stopped only when the fewest runs of any
// benchmark reached the cap (and asked on for a session whose benchmarks
// were all skipped), and bisect --vm counted skipped runs, stopped on a
// boot that brought nothing, but let a batch pass --max-runs.
func TestMoreRuns(t *testing.T) {
	tests := []struct {
		name  string
		until runner.Until
		p     runner.Progress
		want  int
	}{
		{"open, below the cap: a batch", runner.Until{Batch: 3, MaxRuns: 20}, runner.Progress{Open: true, Attempted: 5}, 3},
		{"batch 0 is 1", runner.Until{MaxRuns: 20}, runner.Progress{Open: true, Attempted: 5}, 1},
		{"settled", runner.Until{Batch: 1, MaxRuns: 20}, runner.Progress{Attempted: 5}, 0},
		{"skipped, though open", runner.Until{Batch: 1, MaxRuns: 20}, runner.Progress{Open: true, Skipped: true, Attempted: 1}, 0},
		{"at the cap", runner.Until{Batch: 1, MaxRuns: 5}, runner.Progress{Open: true, Attempted: 5}, 0},
		{"past the cap (MaxRuns below Repeat)", runner.Until{Batch: 1, MaxRuns: 2}, runner.Progress{Open: true, Attempted: 5}, 0},
		{"a batch is cut at the cap", runner.Until{Batch: 5, MaxRuns: 7}, runner.Progress{Open: true, Attempted: 5}, 2},
		{"the last batch brought nothing", runner.Until{Batch: 1, MaxRuns: 20}, runner.Progress{Open: true, Attempted: 1, Stalled: true}, 0},
	}
	for _, tt := range tests {
		if got := tt.until.MoreRuns(tt.p); got != tt.want {
			t.Errorf("%s: MoreRuns(%+v) = %d, want %d", tt.name, tt.p, got, tt.want)
		}
	}
}

// TestAttempted: every measured run is an attempt, whatever its status.
func TestAttempted(t *testing.T) {
	b := &result.Benchmark{Runs: []*result.Run{
		{Warmup: true, Status: result.StatusOK},
		{Status: result.StatusOK},
		{Status: result.StatusFailed},
		{Status: result.StatusTimeout},
		{Status: result.StatusSkipped},
	}}
	if n := runner.Attempted(b); n != 4 {
		t.Errorf("Attempted = %d, want 4 (warm-up aside)", n)
	}
}

// fakeExec is an executor over sets made up front: each batch adds the
// runs asked, with the status status gives, or none where stall says.
type fakeExec struct {
	sets    []*result.Set
	status  func(si, bi int) string
	stall   func(si, bi int) bool
	batches []runner.Batch
}

func (x *fakeExec) Sets() []*result.Set { return x.sets }

func (x *fakeExec) Run(ctx context.Context, b runner.Batch) error {
	x.batches = append(x.batches, b)
	for si, s := range x.sets {
		for bi, bm := range s.Benchmarks {
			n := b.Repeat
			if !b.First() {
				n = b.Runs[si][bi]
			}
			if bm.Skipped != "" || x.stall != nil && x.stall(si, bi) && !b.First() {
				continue
			}
			for range n {
				st := result.StatusOK
				if x.status != nil {
					st = x.status(si, bi)
				}
				bm.Runs = append(bm.Runs, &result.Run{Status: st, Reason: st})
				if st == result.StatusSkipped {
					bm.Skipped = st
					break
				}
			}
		}
	}
	return nil
}

func fakeSets(sets, benchmarks int) []*result.Set {
	var out []*result.Set
	for range sets {
		s := &result.Set{}
		for range benchmarks {
			s.Benchmarks = append(s.Benchmarks, &result.Benchmark{Workload: "w"})
		}
		out = append(out, s)
	}
	return out
}

// TestSchedule runs the scheduler over a fake executor: the sessions that
// went on for ever, or past the cap, under one of the old schedulers stop.
func TestSchedule(t *testing.T) {
	always := func(s *result.Set) []bool {
		out := make([]bool, len(s.Benchmarks))
		for i := range out {
			out[i] = true
		}
		return out
	}
	tests := []struct {
		name        string
		x           *fakeExec
		until       runner.Until
		wantRuns    [][]int // attempted runs per set and benchmark
		wantBatches int
	}{
		{"fixed count", &fakeExec{sets: fakeSets(1, 2)}, runner.Until{}, [][]int{{3, 3}}, 1},
		{"always open: up to the cap", &fakeExec{sets: fakeSets(1, 2)}, runner.Until{More: always, Batch: 2, MaxRuns: 8}, [][]int{{8, 8}}, 4},
		{"always failing: the cap", &fakeExec{sets: fakeSets(1, 1), status: func(int, int) string { return result.StatusFailed }},
			runner.Until{More: always, MaxRuns: 5}, [][]int{{5}}, 3},
		{"always skipped: one run", &fakeExec{sets: fakeSets(2, 1), status: func(int, int) string { return result.StatusSkipped }},
			runner.Until{MoreOf: func(sets []*result.Set) [][]bool { return [][]bool{{true}, {true}} }, MaxRuns: 20}, [][]int{{1}, {1}}, 1},
		{"a batch that brings nothing ends it", &fakeExec{sets: fakeSets(1, 2), stall: func(si, bi int) bool { return bi == 1 }},
			runner.Until{More: always, MaxRuns: 6}, [][]int{{6, 3}}, 4},
		{"one settled, one open", &fakeExec{sets: fakeSets(1, 2)},
			runner.Until{More: func(s *result.Set) []bool { return []bool{runner.Attempted(s.Benchmarks[0]) < 5, true} }, Batch: 1, MaxRuns: 4}, [][]int{{4, 4}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := runner.Schedule(context.Background(), tt.x, 0, 3, tt.until); err != nil {
				t.Fatal(err)
			}
			for si, s := range tt.x.sets {
				for bi, b := range s.Benchmarks {
					if n := runner.Attempted(b); n != tt.wantRuns[si][bi] {
						t.Errorf("set %d benchmark %d: %d attempted runs, want %d", si, bi, n, tt.wantRuns[si][bi])
					}
				}
			}
			if len(tt.x.batches) != tt.wantBatches {
				t.Errorf("%d batches, want %d", len(tt.x.batches), tt.wantBatches)
			}
		})
	}
}

// TestRunUntilFailing: a command that always fails stops at MaxRuns,
// its failed runs counted.
func TestRunUntilFailing(t *testing.T) {
	opt := &runner.Options{Repeat: 1, Version: "test"}
	until := runner.Until{MaxRuns: 3, More: func(*result.Set) []bool { return []bool{true} }}
	set, err := runner.RunUntil(context.Background(), []workload.Spec{runner.CommandSpec([]string{"false"})}, opt, until)
	if err != nil {
		t.Fatal(err)
	}
	b := set.Benchmarks[0]
	if n := runner.Attempted(b); n != 3 || len(b.Measured()) != 0 || !set.Complete {
		t.Errorf("%d runs attempted, %d measured, complete %v; want 3, 0, true", n, len(b.Measured()), set.Complete)
	}
}
