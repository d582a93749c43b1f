package sys

import "errors"

// ErrNoThreadPidfd says this kernel cannot open a pidfd for a thread
// (PIDFD_THREAD came in Linux 6.9).
var ErrNoThreadPidfd = errors.New("no pidfd for threads (PIDFD_THREAD needs Linux 6.9)")
