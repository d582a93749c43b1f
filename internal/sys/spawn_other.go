//go:build !linux

package sys

import "os/exec"

// A Spawner starts kdelta's measured children, on Linux.
type Spawner struct{}

// DefaultSpawner returns a spawner that starts nothing.
func DefaultSpawner() *Spawner { return &Spawner{} }

// Start reports that kdelta's measured children are Linux's.
func (s *Spawner) Start(cmd *exec.Cmd, opt SpawnOptions) error { return ErrNotLinux }
