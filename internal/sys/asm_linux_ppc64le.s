//go:build linux

#include "textflag.h"

// func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr)
//
// clone(flags, stack, parent_tid, tls, child_tid) is 120 on ppc64; a
// failure sets CR0's summary-overflow bit and leaves the errno in R3.
// The child starts on stack with its creator's registers (R30, the g
// register, among them) and finds body and arg below its stack pointer.
TEXT ·rawClone(SB),NOSPLIT|NOFRAME,$0-56
	MOVD	flags+0(FP), R3
	MOVD	stack+8(FP), R4
	MOVD	tid+16(FP), R5
	MOVD	$0, R6
	MOVD	R5, R7
	MOVD	body+24(FP), R8
	MOVD	R8, -8(R4)
	MOVD	arg+32(FP), R8
	MOVD	R8, -16(R4)
	SYSCALL	$120
	BVC	done
	MOVD	$-1, R4
	MOVD	R4, r+40(FP)
	MOVD	R3, errno+48(FP)
	RET
done:
	CMP	R3, $0
	BEQ	child
	MOVD	R3, r+40(FP)
	MOVD	$0, R4
	MOVD	R4, errno+48(FP)
	RET

child:
	// body(arg) by the register ABI: the argument in R3, the closure
	// context in R11, the entry address in R12 and CTR, R0 zero as the
	// toolchain expects.
	XOR	R0, R0
	MOVD	-8(R1), R11
	MOVD	-16(R1), R3
	MOVD	0(R11), R12
	MOVD	R12, CTR
	BL	(CTR)
exit:
	// exit(0), of this thread alone.
	MOVD	$0, R3
	SYSCALL	$1
	BR	exit

// func rawsys6(nr, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)
// (see asm_linux.go)
TEXT ·rawsys6(SB),NOSPLIT,$0-72
	MOVD	nr+0(FP), R9
	MOVD	a1+8(FP), R3
	MOVD	a2+16(FP), R4
	MOVD	a3+24(FP), R5
	MOVD	a4+32(FP), R6
	MOVD	a5+40(FP), R7
	MOVD	a6+48(FP), R8
	SYSCALL	R9
	BVC	ok
	MOVD	$-1, R4
	MOVD	R4, r+56(FP)
	MOVD	R3, errno+64(FP)
	RET
ok:
	MOVD	R3, r+56(FP)
	MOVD	R0, errno+64(FP)
	RET

// func rawCas32(p *uint32, old, new uint32) bool
// (see asm_linux.go): lwarx/stwcx. and an isync after, glibc's acquire
// compare-and-swap.
TEXT ·rawCas32(SB),NOSPLIT|NOFRAME,$0-17
	MOVD	p+0(FP), R3
	MOVWZ	old+8(FP), R4
	MOVWZ	new+12(FP), R5
again:
	LWAR	(R3), R6
	CMPW	R6, R4
	BNE	fail
	STWCCC	R5, (R3)
	BNE	again
	ISYNC
	MOVD	$1, R3
	MOVB	R3, ret+16(FP)
	RET
fail:
	MOVB	R0, ret+16(FP)
	RET

// func threadPointer() uintptr
// (see asm_linux.go): R13, the ELFv2 thread pointer.
TEXT ·threadPointer(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	R13, ret+0(FP)
	RET
