//go:build linux

#include "textflag.h"

// func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr)
//
// clone(flags, stack, parent_tid, tls, child_tid) is 220 on arm64. The
// child starts on stack with its creator's registers (R28, the g
// register, among them) and finds body and arg below its stack pointer.
TEXT ·rawClone(SB),NOSPLIT|NOFRAME,$0-56
	MOVD	flags+0(FP), R0
	MOVD	stack+8(FP), R1
	MOVD	tid+16(FP), R2
	MOVD	$0, R3
	MOVD	R2, R4
	MOVD	body+24(FP), R10
	MOVD	R10, -8(R1)
	MOVD	arg+32(FP), R10
	MOVD	R10, -16(R1)
	MOVD	$220, R8
	SVC
	CMP	ZR, R0
	BEQ	child
	CMN	$4095, R0
	BCC	ok
	MOVD	$-1, R4
	MOVD	R4, r+40(FP)
	NEG	R0, R0
	MOVD	R0, errno+48(FP)
	RET
ok:
	MOVD	R0, r+40(FP)
	MOVD	ZR, errno+48(FP)
	RET

child:
	// body(arg) by the register ABI: the argument in R0, the closure
	// context in R26; R29 zero ends the frame-pointer chain a profiler
	// walks here, instead of leading into the creator's stack.
	MOVD	-8(RSP), R26
	MOVD	-16(RSP), R0
	MOVD	$0, R29
	MOVD	0(R26), R9
	BL	(R9)
exit:
	// exit(0), of this thread alone.
	MOVD	$0, R0
	MOVD	$93, R8
	SVC
	B	exit

// func rawsys6(nr, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)
// (see asm_linux.go)
TEXT ·rawsys6(SB),NOSPLIT,$0-72
	MOVD	nr+0(FP), R8
	MOVD	a1+8(FP), R0
	MOVD	a2+16(FP), R1
	MOVD	a3+24(FP), R2
	MOVD	a4+32(FP), R3
	MOVD	a5+40(FP), R4
	MOVD	a6+48(FP), R5
	SVC
	CMN	$4095, R0
	BCC	ok
	MOVD	$-1, R4
	MOVD	R4, r+56(FP)
	NEG	R0, R0
	MOVD	R0, errno+64(FP)
	RET
ok:
	MOVD	R0, r+56(FP)
	MOVD	ZR, errno+64(FP)
	RET

// func rawCas32(p *uint32, old, new uint32) bool
// (see asm_linux.go): a load-acquire exclusive pair, which every arm64
// has; glibc's acquire compare-and-swap is the same pair or LSE's CASA.
TEXT ·rawCas32(SB),NOSPLIT,$0-17
	MOVD	p+0(FP), R0
	MOVWU	old+8(FP), R1
	MOVWU	new+12(FP), R2
again:
	LDAXRW	(R0), R3
	CMPW	R1, R3
	BNE	fail
	STLXRW	R2, (R0), R3
	CBNZ	R3, again
	MOVD	$1, R0
	MOVB	R0, ret+16(FP)
	RET
fail:
	CLREX
	MOVB	ZR, ret+16(FP)
	RET

// func threadPointer() uintptr
// (see asm_linux.go): TPIDR_EL0.
TEXT ·threadPointer(SB),NOSPLIT,$0-8
	MRS	TPIDR_EL0, R0
	MOVD	R0, ret+0(FP)
	RET
