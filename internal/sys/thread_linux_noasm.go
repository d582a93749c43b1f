//go:build linux && !(amd64 || arm64 || ppc64le || s390x)

package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const rawCloneAsm = false

// rawClone has no trampoline on this architecture.
func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr) {
	return 0, uintptr(unix.ENOSYS)
}
