//go:build linux && (amd64 || arm64 || ppc64le || s390x)

package sys

import "unsafe"

const rawCloneAsm = true

// rawClone is clone(2) with a stack: the new thread, on stack, calls
// body(arg) through the register ABI and then exits (asm_linux_*.s).
// It returns the new thread's id or the errno.
//
// Not noescape: body and arg live on in the new thread, so the compiler
// must keep them in the heap.
func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr)

// rawsys6 is one system call, entered from assembly with nothing of the
// Go runtime around it (asm_linux_*.s); errno is 0 or the call's error.
// A raw thread's calls come here rather than to x/sys/unix, whose raw
// calls jump to package syscall's Go functions: their ABI wrappers are
// instrumented by the race detector, which must never run on a raw
// thread (it crashed in __tsan_func_exit).
//
//go:noescape
func rawsys6(nr, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)

// rawCas32 is an atomic compare-and-swap of *p from old to new, in
// assembly so that a raw thread can do it under the race detector, which
// instruments sync/atomic (asm_linux_*.s).
//
//go:noescape
func rawCas32(p *uint32, old, new uint32) bool

// threadPointer is the calling thread's thread pointer (asm_linux_*.s):
// where a C library keeps the thread's control block and, with glibc,
// the rseq area the kernel writes on the way back to user space.
func threadPointer() uintptr
