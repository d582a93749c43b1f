//go:build linux && (amd64 || arm64 || ppc64le || s390x)

package sys

import "unsafe"

const rawCloneAsm = true

// rawClone is clone(2) with a stack: the new thread, on stack, calls
// body(arg) through the register ABI and then exits (thread_linux_*.s).
// It returns the new thread's id or the errno.
//
// Not noescape: body and arg live on in the new thread, so the compiler
// must keep them in the heap.
func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr)
