package sys

import "errors"

// Membarrier commands (include/uapi/linux/membarrier.h).
const (
	MembarrierQuery  = 0
	MembarrierGlobal = 1
)

// ErrNotSupported marks a kernel feature that is absent (ENOSYS).
var ErrNotSupported = errors.New("not supported by this kernel")
