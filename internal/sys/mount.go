package sys

import (
	"errors"
	"sync"
)

// Where the kernel's tracing and debug file systems are mounted by
// convention: tracefs has its own mount point since Linux 4.1, and debugfs
// keeps a tracing directory that mounts tracefs on first access.
const (
	TracefsDir = "/sys/kernel/tracing"
	DebugfsDir = "/sys/kernel/debug"
)

// ErrNotRoot is returned by MountTracefs and MountDebugfs when the process
// is not root: perf mounts tracefs only then, and so does kdelta.
var ErrNotRoot = errors.New("not root")

// mounted holds what this process mounted because it was missing, in
// order, until it unmounts it again.
var mounted struct {
	sync.Mutex
	list []mountRecord
}

type mountRecord struct{ fstype, dir string }

// Mounted returns the file systems this process mounted with MountTracefs
// or MountDebugfs and has not unmounted, as "tracefs on /sys/kernel/tracing".
// kdelta leaves them mounted, as perf does, and its fingerprint says so.
func Mounted() []string {
	mounted.Lock()
	defer mounted.Unlock()
	var out []string
	for _, m := range mounted.list {
		out = append(out, m.fstype+" on "+m.dir)
	}
	return out
}
