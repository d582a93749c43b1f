//go:build !linux

package sys

// Scheduling policies, with Linux's numbers: nothing is scheduled by them
// here.
const (
	SchedOther = 0
	SchedFIFO  = 1
	SchedRR    = 2
	SchedBatch = 3
	SchedIdle  = 5
)

// Affinity reports that CPU affinity is set only on Linux.
func Affinity(tid int) ([]int, error) { return nil, ErrNotLinux }

// SetAffinity reports that CPU affinity is set only on Linux.
func SetAffinity(tid int, cpus []int) error { return ErrNotLinux }

// Scheduler reports that scheduling policies are read only on Linux.
func Scheduler(tid int) (Policy, error) { return Policy{}, ErrNotLinux }

// SetScheduler reports that scheduling policies are set only on Linux.
func SetScheduler(tid int, p Policy) error { return ErrNotLinux }

// FIFOPriorityRange is empty (lo > hi): no SCHED_FIFO priority is valid
// where kdelta does not measure.
func FIFOPriorityRange() (lo, hi int) { return 1, 0 }

// CurrentCPU reports that CPU numbers are Linux's.
func CurrentCPU() (int, error) { return 0, ErrNotLinux }
