package counter

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kdelta/kdelta/internal/sys"
)

// Attach lists a process's threads from /proc and stops the process while
// it opens counters on them, so that the list cannot change underneath.

// tasks lists the thread ids of process pid.
func tasks(pid int) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return nil, err
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	sort.Ints(tids)
	return tids, nil
}

// taskState returns the state letter of thread tid of pid (R, S, D, T, t,
// Z, ...), or 0 when it cannot be read (the thread is gone).
func taskState(pid, tid int) byte {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(tid), "stat"))
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may hold spaces and ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// allThreads tells whether every thread of pid satisfies ok.
func allThreads(pid int, ok func(byte) bool) bool {
	tids, err := tasks(pid)
	if err != nil {
		return true
	}
	for _, tid := range tids {
		if st := taskState(pid, tid); st != 0 && !ok(st) {
			return false
		}
	}
	return true
}

func stoppedOrDead(st byte) bool { return st == 'T' || st == 't' || st == 'Z' || st == 'X' }

// waitThreads polls until every thread of pid satisfies ok or the time is
// up, and tells which.
func waitThreads(pid int, ok func(byte) bool, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if allThreads(pid, ok) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// freeze stops process pid so its thread set cannot change, and returns
// the function that continues it; frozen tells whether every thread is
// stopped. A process that is already stopped is left as it is, and the
// calling process is never stopped.
func freeze(pid int) (resume func(), frozen bool) {
	noop := func() {}
	if pid == os.Getpid() {
		return noop, false
	}
	if st := taskState(pid, pid); st == 'T' || st == 't' {
		return noop, allThreads(pid, stoppedOrDead)
	}
	if err := sys.Signal(pid, syscall.SIGSTOP); err != nil {
		return noop, false
	}
	frozen = waitThreads(pid, stoppedOrDead, time.Second)
	return func() {
		sys.Signal(pid, syscall.SIGCONT)
		// The counters are enabled once the threads are out of the stop,
		// so the wake-ups after SIGCONT are not counted.
		waitThreads(pid, func(st byte) bool { return st != 'T' }, 200*time.Millisecond)
	}, frozen
}
