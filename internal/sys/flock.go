package sys

import "errors"

// ErrLocked is returned by TryLock when another open file holds the lock.
var ErrLocked = errors.New("locked by another process")
