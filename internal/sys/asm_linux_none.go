//go:build linux && !(amd64 || arm64 || ppc64le || s390x)

package sys

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

const rawCloneAsm = false

// rawClone has no trampoline on this architecture.
func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr) {
	return 0, uintptr(unix.ENOSYS)
}

// rawsys6 goes through x/sys/unix here, where there are no raw threads.
//
//go:nosplit
func rawsys6(nr, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr) {
	r, _, e := unix.RawSyscall6(nr, a1, a2, a3, a4, a5, a6)
	return r, uintptr(e)
}

// rawCas32 is sync/atomic's here, where there are no raw threads.
func rawCas32(p *uint32, old, new uint32) bool {
	return atomic.CompareAndSwapUint32(p, old, new)
}

// threadPointer is unknown here; lean forks fall back to ForkRaw.
func threadPointer() uintptr { return 0 }
