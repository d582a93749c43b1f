package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPipePeerOneThread is issue 14's guard on the mechanism: in process
// mode the pipe peer is a forked task with no Go runtime of its own, so it
// has exactly one thread for the whole window, as perf bench sched pipe's
// forked child has; spawn=exec, the opt-in, re-executes kdelta for the
// peer and shows the runtime's threads beside it (which is how the test
// could fail).
func TestPipePeerOneThread(t *testing.T) {
	for _, tt := range []struct {
		spawn string
		one   bool
	}{{"fork", true}, {"exec", false}} {
		t.Run(tt.spawn, func(t *testing.T) {
			cmd, mark := startMarked(t, "run", "pipe:loops=1500000,cpus=same,spawn="+tt.spawn, "-r", "1", "--warmup", "0",
				"--no-store", "--counters", "none", "--monitor", "none")
			most, samples := 0, 0
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) && cmd.ProcessState == nil {
				if peer := grandchild(mark, cmd.Process.Pid); peer != "" {
					if ts, err := os.ReadDir(filepath.Join("/proc", peer, "task")); err == nil {
						samples++
						most = max(most, len(ts))
					}
				} else if samples > 0 {
					break // the peer is gone: the window is over
				}
				if samples >= 200 {
					break // a second of the window: enough looks
				}
				time.Sleep(5 * time.Millisecond)
			}
			interrupt(t, cmd)
			t.Logf("spawn=%s: the peer seen %d times, at most %d threads", tt.spawn, samples, most)
			switch {
			case samples < 3:
				t.Fatalf("the peer was seen only %d times: the window is too short to watch", samples)
			case tt.one && most != 1:
				t.Errorf("spawn=fork: the peer had %d threads, want 1", most)
			case !tt.one && most < 2:
				t.Errorf("spawn=exec: the peer had %d thread(s): the check cannot tell a Go runtime from none", most)
			}
		})
	}
}

// grandchild returns the pid of a live process that carries mark and
// whose parent is a child of pid: the measured child's peer.
func grandchild(mark string, pid int) string {
	parent := func(p string) string {
		stat, err := os.ReadFile(filepath.Join("/proc", p, "stat"))
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if err != nil || i < 0 {
			return ""
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			return ""
		}
		return f[1]
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), mark) {
			continue
		}
		if pp := parent(e.Name()); pp != "" && parent(pp) == strconv.Itoa(pid) {
			return e.Name()
		}
	}
	return ""
}
