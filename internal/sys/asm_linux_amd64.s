//go:build linux

#include "textflag.h"

// func rawClone(flags, stack uintptr, tid *int32, body func(unsafe.Pointer), arg unsafe.Pointer) (r, errno uintptr)
//
// clone(flags, stack, parent_tid, child_tid, tls) is 56 on amd64. The
// child starts on stack with its creator's registers: R14 still holds
// the creator's g, which nosplit code never reads, and it finds body and
// arg below its stack pointer, where they were put before the call.
TEXT ·rawClone(SB),NOSPLIT|NOFRAME,$0-56
	MOVQ	flags+0(FP), DI
	MOVQ	stack+8(FP), SI
	MOVQ	tid+16(FP), DX
	MOVQ	DX, R10
	XORQ	R8, R8
	MOVQ	body+24(FP), AX
	MOVQ	AX, -8(SI)
	MOVQ	arg+32(FP), AX
	MOVQ	AX, -16(SI)
	MOVL	$56, AX
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, r+40(FP)
	NEGQ	AX
	MOVQ	AX, errno+48(FP)
	RET
ok:
	MOVQ	AX, r+40(FP)
	MOVQ	$0, errno+48(FP)
	RET

child:
	// body(arg) by the register ABI: the argument in AX, the closure
	// context in DX, X15 zero; BP zero ends the frame-pointer chain a
	// profiler walks here, instead of leading into the creator's stack.
	MOVQ	-8(SP), DX
	MOVQ	-16(SP), AX
	XORPS	X15, X15
	XORQ	BP, BP
	MOVQ	0(DX), BX
	CALL	BX
exit:
	// exit(0), of this thread alone; the kernel then clears the tid word
	// and wakes Join.
	XORL	DI, DI
	MOVL	$60, AX
	SYSCALL
	JMP	exit

// func rawsys6(nr, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)
// (see asm_linux.go)
TEXT ·rawsys6(SB),NOSPLIT,$0-72
	MOVQ	nr+0(FP), AX
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	MOVQ	a4+32(FP), R10
	MOVQ	a5+40(FP), R8
	MOVQ	a6+48(FP), R9
	SYSCALL
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, r+56(FP)
	NEGQ	AX
	MOVQ	AX, errno+64(FP)
	RET
ok:
	MOVQ	AX, r+56(FP)
	MOVQ	$0, errno+64(FP)
	RET

// func rawCas32(p *uint32, old, new uint32) bool
// (see asm_linux.go)
TEXT ·rawCas32(SB),NOSPLIT,$0-17
	MOVQ	p+0(FP), BX
	MOVL	old+8(FP), AX
	MOVL	new+12(FP), CX
	LOCK
	CMPXCHGL	CX, 0(BX)
	SETEQ	ret+16(FP)
	RET

// func threadPointer() uintptr
// (see asm_linux.go): the FS base, read with arch_prctl(ARCH_GET_FS).
TEXT ·threadPointer(SB),NOSPLIT,$16-8
	MOVQ	$0, 0(SP)
	MOVQ	$0x1003, DI
	LEAQ	0(SP), SI
	MOVL	$158, AX
	SYSCALL
	MOVQ	0(SP), AX
	MOVQ	AX, ret+0(FP)
	RET
