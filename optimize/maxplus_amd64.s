//go:build amd64 && !purego

#include "textflag.h"

// The pricing programme's kernels (maxplus.go has each one's Go version and
// what it does), two cells at a time in SSE2, on the cells that pair off;
// the Go wrappers (maxplus_amd64.go) do the odd one. MAXPD gives its second
// operand (Go's source, written first) on equal values, as larger does, so
// the rows are larger's bit for bit. Kernels that read r[b−wb] go from the
// row's top down and load a pair's sources before they store it: every
// cell read is one the item has not yet written.

// BCAST loads the float64 at off(FP) into both lanes of X.
#define BCAST(off, X) \
	MOVSD off(FP), X; \
	UNPCKLPD X, X

// BLEND sets X0 to X1 in the lanes where X1 > X0 (strictly, as the Go
// versions compare), and R to those lanes' mask bits; X1 and X2 are lost.
#define BLEND(R) \
	MOVAPD X0, X2; \
	CMPPD X1, X2, $1; \
	MOVMSKPD X2, R; \
	ANDPD X2, X1; \
	ANDNPD X0, X2; \
	ORPD X1, X2; \
	MOVAPD X2, X0

// traceCodes are the codes of two cells (the low byte the lower cell's) by
// their three steps' MOVMSKPD masks: bits 0–1 p[b]+v raised the cell, 2–3
// z+v, 4–5 r[b−wb]+v, a bit per cell; a cell's code is the last step that
// raised it (1, 2, 3; 0: none).
DATA traceCodes<>+0(SB)/8, $0x0101010000010000
DATA traceCodes<>+8(SB)/8, $0x0102010200020002
DATA traceCodes<>+16(SB)/8, $0x0201020002010200
DATA traceCodes<>+24(SB)/8, $0x0202020202020202
DATA traceCodes<>+32(SB)/8, $0x0103010300030003
DATA traceCodes<>+40(SB)/8, $0x0103010300030003
DATA traceCodes<>+48(SB)/8, $0x0203020302030203
DATA traceCodes<>+56(SB)/8, $0x0203020302030203
DATA traceCodes<>+64(SB)/8, $0x0301030003010300
DATA traceCodes<>+72(SB)/8, $0x0302030203020302
DATA traceCodes<>+80(SB)/8, $0x0301030003010300
DATA traceCodes<>+88(SB)/8, $0x0302030203020302
DATA traceCodes<>+96(SB)/8, $0x0303030303030303
DATA traceCodes<>+104(SB)/8, $0x0303030303030303
DATA traceCodes<>+112(SB)/8, $0x0303030303030303
DATA traceCodes<>+120(SB)/8, $0x0303030303030303
GLOBL traceCodes<>(SB), RODATA|NOPTR, $128

// func maxPlusPairs(dst, src []float64, v float64)
TEXT ·maxPlusPairs(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), AX
	MOVQ src_base+24(FP), SI
	BCAST(v+48, X7)
loop:
	SUBQ $2, AX
	JLT done
	MOVUPD (SI)(AX*8), X1
	ADDPD X7, X1
	MOVUPD (DI)(AX*8), X0
	MAXPD X1, X0
	MOVUPD X0, (DI)(AX*8)
	JMP loop
done:
	RET

// func maxPlusShiftPairs(r, p []float64, wb int, z, v float64)
TEXT ·maxPlusShiftPairs(SB), NOSPLIT, $0-72
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), AX
	MOVQ p_base+24(FP), SI
	MOVQ p_len+32(FP), R8
	MOVQ wb+48(FP), R9
	BCAST(z+56, X6)
	BCAST(v+64, X7)
loop:
	SUBQ $2, AX
	CMPQ AX, R9
	JLT done
	MOVQ AX, BX
	SUBQ R9, BX
	MOVUPD (DI)(BX*8), X1
	MOVAPD X6, X3
	MAXPD X1, X3
	TESTQ R8, R8
	JEQ nop
	MOVUPD (SI)(AX*8), X4
	MAXPD X3, X4
	MOVAPD X4, X3
nop:
	ADDPD X7, X3
	MOVUPD (DI)(AX*8), X0
	MAXPD X3, X0
	MOVUPD X0, (DI)(AX*8)
	JMP loop
done:
	RET

// func maxPlusShiftTracedPairs(r, p []float64, c []int8, wb int, z, v float64)
TEXT ·maxPlusShiftTracedPairs(SB), NOSPLIT, $0-96
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), AX
	MOVQ p_base+24(FP), SI
	MOVQ p_len+32(FP), R8
	MOVQ c_base+48(FP), DX
	MOVQ wb+72(FP), R9
	BCAST(v+88, X7)
	BCAST(z+80, X6)
	ADDPD X7, X6
loop:
	SUBQ $2, AX
	CMPQ AX, R9
	JLT done
	MOVQ AX, BX
	SUBQ R9, BX
	MOVUPD (DI)(BX*8), X5
	ADDPD X7, X5
	MOVUPD (DI)(AX*8), X0
	XORQ R10, R10
	TESTQ R8, R8
	JEQ nop
	MOVUPD (SI)(AX*8), X1
	ADDPD X7, X1
	BLEND(R10)
nop:
	MOVAPD X6, X1
	BLEND(R11)
	MOVAPD X5, X1
	BLEND(R12)
	MOVUPD X0, (DI)(AX*8)
	SHLQ $2, R11
	SHLQ $4, R12
	ORQ R11, R10
	ORQ R12, R10
	LEAQ traceCodes<>(SB), R13
	MOVW (R13)(R10*2), R13
	MOVW R13, (DX)(AX*1)
	JMP loop
done:
	RET

// func maxPlusTracedPairs(dst, src []float64, c []int8, v float64)
TEXT ·maxPlusTracedPairs(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), AX
	MOVQ src_base+24(FP), SI
	MOVQ c_base+48(FP), DX
	BCAST(v+72, X7)
loop:
	SUBQ $2, AX
	JLT done
	MOVUPD (DI)(AX*8), X0
	MOVUPD (SI)(AX*8), X1
	ADDPD X7, X1
	BLEND(R10)
	MOVUPD X0, (DI)(AX*8)
	LEAQ traceCodes<>(SB), R13
	MOVW (R13)(R10*2), R13
	MOVW R13, (DX)(AX*1)
	JMP loop
done:
	RET

// func maxSumPairs(v float64, e, q []float64) float64
TEXT ·maxSumPairs(SB), NOSPLIT, $0-64
	BCAST(v+0, X7)
	MOVQ e_base+8(FP), DI
	MOVQ e_len+16(FP), CX
	MOVQ q_base+32(FP), SI
	MOVQ $0xFFF0000000000000, AX
	MOVQ AX, X0
	UNPCKLPD X0, X0
	XORQ AX, AX
	ANDQ $-2, CX
loop:
	CMPQ AX, CX
	JGE done
	MOVUPD (DI)(AX*8), X2
	ADDPD X7, X2
	MOVUPD (SI)(AX*8), X3
	ADDPD X3, X2
	MAXPD X2, X0
	ADDQ $2, AX
	JMP loop
done:
	MOVAPD X0, X1
	UNPCKHPD X1, X1
	MAXSD X1, X0
	MOVSD X0, ret+56(FP)
	RET
