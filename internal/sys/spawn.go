package sys

import "syscall"

// SpawnOptions say how a child starts. Affinity and policy are set on the
// spawning thread just before fork and restored just after, so the child
// inherits them from its first instruction: every thread the Go runtime
// later creates in it carries them too.
type SpawnOptions struct {
	CPUs      []int   // nil: inherit
	Policy    *Policy // nil: inherit
	NewGroup  bool    // put the child in a process group of its own
	Pdeathsig syscall.Signal
}
