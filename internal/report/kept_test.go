package report

import (
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestKeptRuns counts measured runs and warm-ups apart, over every set,
// leaving out runs that did not finish, singular and plural right.
func TestKeptRuns(t *testing.T) {
	set := func(runs ...*result.Run) *result.Set {
		return &result.Set{Benchmarks: []*result.Benchmark{{Workload: "syscall", Runs: runs}}}
	}
	ok := &result.Run{Status: result.StatusOK}
	warm := &result.Run{Status: result.StatusOK, Warmup: true}
	failed := &result.Run{Status: result.StatusFailed}
	interrupted := &result.Run{Status: result.StatusInterrupted, Warmup: true}
	tests := []struct {
		sets []*result.Set
		want string
	}{
		{[]*result.Set{set()}, "kept 0 measured runs and 0 warm-up runs"},
		{[]*result.Set{set(warm)}, "kept 0 measured runs and 1 warm-up run"},
		{[]*result.Set{set(warm, ok, failed)}, "kept 1 measured run and 1 warm-up run"},
		{[]*result.Set{set(warm, ok, ok), set(warm, interrupted, ok)}, "kept 3 measured runs and 2 warm-up runs"},
	}
	for _, tt := range tests {
		if got := KeptRuns(tt.sets...); got != tt.want {
			t.Errorf("KeptRuns: %q, want %q", got, tt.want)
		}
	}
}
