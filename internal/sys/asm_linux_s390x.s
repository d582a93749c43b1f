//go:build linux

#include "textflag.h"

// func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr)
//
// clone(stack, flags, parent_tid, child_tid, tls) is 120 on s390x, whose
// first two arguments are swapped against the other architectures'. The
// child starts on stack with its creator's registers (R13, the g
// register, among them) and finds body and arg below its stack pointer.
TEXT ·rawClone(SB),NOSPLIT|NOFRAME,$0-56
	MOVD	stack+8(FP), R2
	MOVD	flags+0(FP), R3
	MOVD	tid+16(FP), R4
	MOVD	R4, R5
	MOVD	$0, R6
	MOVD	body+24(FP), R7
	MOVD	R7, -8(R2)
	MOVD	arg+32(FP), R7
	MOVD	R7, -16(R2)
	MOVD	$120, R1
	SYSCALL
	CMPBEQ	R2, $0, child
	MOVD	$0xfffffffffffff001, R8
	CMPUBLT	R2, R8, ok
	MOVD	$-1, R3
	MOVD	R3, r+40(FP)
	NEG	R2, R2
	MOVD	R2, errno+48(FP)
	RET
ok:
	MOVD	R2, r+40(FP)
	MOVD	$0, errno+48(FP)
	RET

child:
	// body(arg) by the register ABI: the argument in R2, the closure
	// context in R12.
	XOR	R0, R0
	MOVD	-8(R15), R12
	MOVD	-16(R15), R2
	MOVD	0(R12), R9
	BL	R9
exit:
	// exit(0), of this thread alone.
	MOVD	$0, R2
	MOVD	$1, R1
	SYSCALL
	BR	exit

// func rawsys6(nr, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)
// (see asm_linux.go)
TEXT ·rawsys6(SB),NOSPLIT,$0-72
	MOVD	nr+0(FP), R1
	MOVD	a1+8(FP), R2
	MOVD	a2+16(FP), R3
	MOVD	a3+24(FP), R4
	MOVD	a4+32(FP), R5
	MOVD	a5+40(FP), R6
	MOVD	a6+48(FP), R7
	SYSCALL
	MOVD	$0xfffffffffffff001, R8
	CMPUBLT	R2, R8, ok
	MOVD	$-1, R3
	MOVD	R3, r+56(FP)
	NEG	R2, R2
	MOVD	R2, errno+64(FP)
	RET
ok:
	MOVD	R2, r+56(FP)
	MOVD	$0, errno+64(FP)
	RET

// func rawCas32(p *uint32, old, new uint32) bool
// (see asm_linux.go): compare and swap, serializing on s390x.
TEXT ·rawCas32(SB),NOSPLIT,$0-17
	MOVD	p+0(FP), R3
	MOVWZ	old+8(FP), R4
	MOVWZ	new+12(FP), R5
	CS	R4, R5, 0(R3)
	BNE	fail
	MOVB	$1, ret+16(FP)
	RET
fail:
	MOVB	$0, ret+16(FP)
	RET

// func threadPointer() uintptr
// (see asm_linux.go): access registers 0 and 1, high word first.
TEXT ·threadPointer(SB),NOSPLIT,$0-8
	MOVW	AR0, R1
	SLD	$32, R1
	MOVW	AR1, R1
	MOVD	R1, ret+0(FP)
	RET
