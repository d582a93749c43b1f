package sys

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Scheduling policies as sched_getscheduler(2) reports them.
const (
	SchedOther = unix.SCHED_NORMAL
	SchedFIFO  = unix.SCHED_FIFO
	SchedRR    = unix.SCHED_RR
	SchedBatch = unix.SCHED_BATCH
	SchedIdle  = unix.SCHED_IDLE
)

// Affinity returns the CPUs task tid (0: the calling thread) may run on.
func Affinity(tid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// SetAffinity restricts task tid (0: the calling thread) to cpus.
func SetAffinity(tid int, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c >= len(set)*64 {
			return fmt.Errorf("CPU %d out of range", c)
		}
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(tid, &set); err != nil {
		return fmt.Errorf("sched_setaffinity to CPUs %s: %w", FormatCPUList(cpus), err)
	}
	return nil
}

// Scheduler returns task tid's policy and priority (0: the calling thread).
func Scheduler(tid int) (Policy, error) {
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return Policy{}, fmt.Errorf("sched_getattr: %w", err)
	}
	return Policy{Policy: int(a.Policy), Priority: int(a.Priority)}, nil
}

// SetScheduler sets task tid's policy and priority (0: the calling thread).
func SetScheduler(tid int, p Policy) error {
	a := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: uint32(p.Policy), Priority: uint32(p.Priority)}
	if err := unix.SchedSetAttr(tid, &a, 0); err != nil {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("set %s: %w", p, ErrNoPrivilege)
		}
		return fmt.Errorf("set %s: %w", p, err)
	}
	return nil
}

// FIFOPriorityRange returns the valid SCHED_FIFO priorities.
func FIFOPriorityRange() (lo, hi int) {
	l, _, _ := unix.RawSyscall(unix.SYS_SCHED_GET_PRIORITY_MIN, SchedFIFO, 0, 0)
	h, _, _ := unix.RawSyscall(unix.SYS_SCHED_GET_PRIORITY_MAX, SchedFIFO, 0, 0)
	return int(l), int(h)
}

// CurrentCPU returns the CPU the calling thread runs on (getcpu(2)).
func CurrentCPU() (int, error) {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return 0, fmt.Errorf("getcpu: %w", e)
	}
	return int(cpu), nil
}
