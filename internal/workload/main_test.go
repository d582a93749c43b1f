package workload_test

import (
	"os"
	"testing"

	"github.com/kdelta/kdelta/internal/workload"
)

// TestMain lets the test binary act as a workload helper process, as the
// kdelta binary does, so process-mode workloads run for real in tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workload.WorkerArg {
		os.Exit(workload.WorkerMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
