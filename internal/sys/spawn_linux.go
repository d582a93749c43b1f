package sys

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A Spawner starts child processes from one OS thread that lives as long as
// the process. PR_SET_PDEATHSIG fires when the thread that created a child
// exits, not the process, so spawning from an arbitrary runtime thread
// (which the runtime may retire) could kill a child early.
type Spawner struct {
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	opt  SpawnOptions
	done chan error
}

var (
	spawnerOnce sync.Once
	spawner     *Spawner
)

// DefaultSpawner returns the process's spawner, starting its thread on
// first use.
func DefaultSpawner() *Spawner {
	spawnerOnce.Do(func() {
		spawner = &Spawner{reqs: make(chan spawnReq)}
		started := make(chan struct{})
		go spawner.loop(started)
		<-started
	})
	return spawner
}

func (s *Spawner) loop(started chan struct{}) {
	// Locked and never unlocked: this goroutine, and so this thread, lives
	// until the process exits.
	runtime.LockOSThread()
	close(started)
	for r := range s.reqs {
		r.done <- startOn(r.cmd, r.opt)
	}
}

// Start starts cmd on the spawner's thread with opt applied.
func (s *Spawner) Start(cmd *exec.Cmd, opt SpawnOptions) error {
	done := make(chan error, 1)
	s.reqs <- spawnReq{cmd: cmd, opt: opt, done: done}
	return <-done
}

func startOn(cmd *exec.Cmd, opt SpawnOptions) (err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = opt.NewGroup
	if opt.Pdeathsig != 0 {
		cmd.SysProcAttr.Pdeathsig = opt.Pdeathsig
	} else {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if c := opt.Cgroup; c != nil {
		leave, jerr := joinCgroup(cmd, c)
		if jerr != nil {
			return jerr
		}
		// Deferred first, so it runs last: affinity and policy are put
		// back inside the cgroup, then the thread leaves it.
		defer func() {
			if lerr := leave(); lerr != nil && err == nil {
				err = lerr
			}
		}()
	}
	if opt.CPUs != nil {
		saved, err := Affinity(0)
		if err != nil {
			return err
		}
		if err := SetAffinity(0, opt.CPUs); err != nil {
			return err
		}
		defer func() {
			if rerr := SetAffinity(0, saved); rerr != nil && err == nil {
				err = fmt.Errorf("restore spawner affinity: %w", rerr)
			}
		}()
	}
	if opt.Policy != nil {
		saved, err := Scheduler(0)
		if err != nil {
			return err
		}
		if err := SetScheduler(0, *opt.Policy); err != nil {
			return err
		}
		defer func() {
			if rerr := SetScheduler(0, saved); rerr != nil && err == nil {
				err = fmt.Errorf("restore spawner policy: %w", rerr)
			}
		}()
	}
	return cmd.Start()
}

// joinCgroup makes cmd start in cgroup c and returns what undoes it once
// cmd has started. Under cgroup v2 the child is cloned into the cgroup;
// under v1 the spawning thread joins it (a v1 cgroup takes single
// threads) and leaves it again, with its affinity as it was before.
func joinCgroup(cmd *exec.Cmd, c *SpawnCgroup) (func() error, error) {
	if c.V1Home == "" {
		d, err := os.Open(c.Dir)
		if err != nil {
			return nil, fmt.Errorf("cgroup %s: %w", c.Dir, err)
		}
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(d.Fd())
		return d.Close, nil
	}
	saved, err := Affinity(0)
	if err != nil {
		return nil, err
	}
	if err := writeTID(c.Dir); err != nil {
		return nil, err
	}
	return func() error {
		if err := writeTID(c.V1Home); err != nil {
			return err
		}
		// Back in its cgroup the thread has that cgroup's CPUs; the
		// mask it had is asked for again so that it is also the one
		// the kernel keeps for it when cpusets change.
		_ = SetAffinity(0, saved)
		return nil
	}, nil
}

// writeTID moves the calling thread into the v1 cgroup dir.
func writeTID(dir string) error {
	p := filepath.Join(dir, "tasks")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("join cgroup: %w", err)
	}
	_, err = f.Write([]byte(strconv.Itoa(unix.Gettid())))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("join cgroup %s: %w", dir, err)
	}
	return nil
}
