package runner_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

type proc struct {
	pid, ppid, pgid int
	cmdline         string
	environ         string
}

// procs lists the live processes from /proc.
func procs() []proc {
	ents, _ := os.ReadDir("/proc")
	var ps []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses.
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		p := proc{pid: pid}
		p.ppid, _ = strconv.Atoi(f[1])
		p.pgid, _ = strconv.Atoi(f[2])
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		p.cmdline = strings.ReplaceAll(string(cl), "\x00", " ")
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		p.environ = string(env)
		ps = append(ps, p)
	}
	return ps
}

// waitNoProcess waits up to 5 s for every process matching to be gone.
func waitNoProcess(t *testing.T, match func(proc) bool) {
	t.Helper()
	var left []proc
	for i := 0; i < 100; i++ {
		left = left[:0]
		for _, p := range procs() {
			if match(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range left {
		t.Errorf("process survived: pid %d ppid %d pgid %d: %s", p.pid, p.ppid, p.pgid, p.cmdline)
	}
}
