package workload_test

import (
	"os"
	"testing"

	"github.com/kdelta/kdelta/internal/runner"
)

// TestMain lets the test binary act as a workload helper process and as
// the runner's measured child, as the kdelta binary does, so process-mode
// workloads, and workloads run through the runner, run for real in tests.
func TestMain(m *testing.M) {
	if code, ok := runner.Hidden(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
