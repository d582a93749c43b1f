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
	// Cgroup, when set, is the cgroup the child starts in (a CPU
	// shield's), so that it and everything it forks run there from
	// their first instruction.
	Cgroup *SpawnCgroup
}

// A SpawnCgroup names the cgroup a child starts in.
type SpawnCgroup struct {
	// Dir is the cgroup's directory.
	Dir string
	// V1Home, for a cgroup v1 hierarchy, is the cgroup the spawning
	// thread belongs to: the thread joins Dir for the fork (a child
	// starts in its creator thread's cgroup) and comes back here. ""
	// means Dir is a cgroup v2 directory, which the child is cloned into
	// (CLONE_INTO_CGROUP).
	V1Home string
}
