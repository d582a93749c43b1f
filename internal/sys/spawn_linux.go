package sys

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
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
