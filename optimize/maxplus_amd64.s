//go:build amd64 && !purego

#include "textflag.h"

// The pricing programme's kernels (maxplus.go has each one's Go version and
// what it does): two cells an instruction in SSE2, which every amd64 has,
// and four in AVX where the machine has it (useAVX). The row updates do the
// odd cells of each segment one at a time; maxSumPairs leaves its odd cell
// to its wrapper. MAXPD and VMAXPD give their second operand (Go's source,
// written first) on equal values, as larger does, so the rows are larger's
// bit for bit. The second role's segment [wb, n) goes first and from the
// top down, each block's sources (r[b−wb]) loaded before it is stored:
// every cell read is one the item has not yet written; then the segment
// below wb, whose cells were among those sources.

// SECONDFROM sets R8 to the first cell of the second role's segment (see
// secondFrom): the row's length CX without one (wb in R9 below 0), else
// min(wb, CX); with none it goes on at below.
#define SECONDFROM \
	MOVQ CX, R8; \
	TESTQ R9, R9; \
	JLT below; \
	CMPQ R9, CX; \
	JGE below; \
	MOVQ R9, R8

// SHIFT updates cell(s) b = AX (and AX+1) of the second role's segment:
// r[b] = max(r[b], max(p[b], max(z, r[b−wb])) + v), z in X6, v in X7.
#define SHIFT(LD, ST, MAX, ADD) \
	MOVQ AX, BX; \
	SUBQ R9, BX; \
	LD (DI)(BX*8), X1; \
	MOVAPD X6, X3; \
	MAX X1, X3; \
	LD (SI)(AX*8), X4; \
	MAX X3, X4; \
	ADD X7, X4; \
	LD (DI)(AX*8), X0; \
	MAX X4, X0; \
	ST X0, (DI)(AX*8)

// PLAIN updates cell(s) b = AX (and AX+1) below it: r[b] = max(r[b], p[b]+v).
#define PLAIN(LD, ST, MAX, ADD) \
	LD (SI)(AX*8), X1; \
	ADD X7, X1; \
	LD (DI)(AX*8), X0; \
	MAX X1, X0; \
	ST X0, (DI)(AX*8)

// func rowMaxSSE(r, p []float64, wb int, z, v float64)
TEXT ·rowMaxSSE(SB), NOSPLIT, $0-72
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), CX
	MOVQ p_base+24(FP), SI
	MOVQ wb+48(FP), R9
	MOVSD z+56(FP), X6
	UNPCKLPD X6, X6
	MOVSD v+64(FP), X7
	UNPCKLPD X7, X7
	SECONDFROM
	MOVQ CX, AX
shiftPairs:
	SUBQ $2, AX
	CMPQ AX, R8
	JLT shiftOdd
	SHIFT(MOVUPD, MOVUPD, MAXPD, ADDPD)
	JMP shiftPairs
shiftOdd:
	INCQ AX
	CMPQ AX, R8
	JLT below
	SHIFT(MOVSD, MOVSD, MAXSD, ADDSD)
below:
	MOVQ R8, AX
plainPairs:
	SUBQ $2, AX
	JLT plainOdd
	PLAIN(MOVUPD, MOVUPD, MAXPD, ADDPD)
	JMP plainPairs
plainOdd:
	INCQ AX
	JLT done
	PLAIN(MOVSD, MOVSD, MAXSD, ADDSD)
done:
	RET

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

// BLEND sets X0 to X1 in the lanes where X1 > X0 (strictly, as the Go
// versions compare), and R to those lanes' mask bits; X1 and X2 are lost.
// On one cell the upper lane holds no cell's: its bits change only the
// code's high byte, which CODES(MOVB) does not store.
#define BLEND(R) \
	MOVAPD X0, X2; \
	CMPPD X1, X2, $1; \
	MOVMSKPD X2, R; \
	ANDPD X2, X1; \
	ANDNPD X0, X2; \
	ORPD X1, X2; \
	MOVAPD X2, X0

// SHIFTTRACED is SHIFT with the steps apart (p[b]+v, z+v, r[b−wb]+v, X6
// holding z+v), each raising the cell only strictly, their masks' bits
// into R10 as traceCodes reads them.
#define SHIFTTRACED(LD, ST) \
	MOVQ AX, BX; \
	SUBQ R9, BX; \
	LD (DI)(BX*8), X5; \
	ADDPD X7, X5; \
	LD (DI)(AX*8), X0; \
	LD (SI)(AX*8), X1; \
	ADDPD X7, X1; \
	BLEND(R10); \
	MOVAPD X6, X1; \
	BLEND(R11); \
	MOVAPD X5, X1; \
	BLEND(R12); \
	ST X0, (DI)(AX*8); \
	SHLQ $2, R11; \
	SHLQ $4, R12; \
	ORQ R11, R10; \
	ORQ R12, R10

// PLAINTRACED is PLAIN with its mask's bits into R10.
#define PLAINTRACED(LD, ST) \
	LD (DI)(AX*8), X0; \
	LD (SI)(AX*8), X1; \
	ADDPD X7, X1; \
	BLEND(R10); \
	ST X0, (DI)(AX*8)

// CODES stores the codes of R10's bits at c[AX] (and c[AX+1]).
#define CODES(STB) \
	LEAQ traceCodes<>(SB), R13; \
	MOVW (R13)(R10*2), R13; \
	STB R13, (DX)(AX*1)

// func rowMaxTracedSSE(r, p []float64, c []int8, wb int, z, v float64)
TEXT ·rowMaxTracedSSE(SB), NOSPLIT, $0-96
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), CX
	MOVQ p_base+24(FP), SI
	MOVQ c_base+48(FP), DX
	MOVQ wb+72(FP), R9
	MOVSD v+88(FP), X7
	UNPCKLPD X7, X7
	MOVSD z+80(FP), X6
	UNPCKLPD X6, X6
	ADDPD X7, X6
	SECONDFROM
	MOVQ CX, AX
shiftPairs:
	SUBQ $2, AX
	CMPQ AX, R8
	JLT shiftOdd
	SHIFTTRACED(MOVUPD, MOVUPD)
	CODES(MOVW)
	JMP shiftPairs
shiftOdd:
	INCQ AX
	CMPQ AX, R8
	JLT below
	SHIFTTRACED(MOVSD, MOVSD)
	CODES(MOVB)
below:
	MOVQ R8, AX
plainPairs:
	SUBQ $2, AX
	JLT plainOdd
	PLAINTRACED(MOVUPD, MOVUPD)
	CODES(MOVW)
	JMP plainPairs
plainOdd:
	INCQ AX
	JLT done
	PLAINTRACED(MOVSD, MOVSD)
	CODES(MOVB)
done:
	RET

// func maxSumPairs(v float64, e, q []float64) float64: maxSum over the
// cells that pair off.
TEXT ·maxSumPairs(SB), NOSPLIT, $0-64
	MOVSD v+0(FP), X7
	UNPCKLPD X7, X7
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

// VSHIFT and VPLAIN are SHIFT and PLAIN in AVX's three-operand form, on
// registers a, b, c, d (X for one or two cells, Y for four), z in zr and v
// in vr; VMAXPD's second source (Go's first operand) wins ties, as MAXPD's
// does, so the cells are the same bit for bit.
#define VSHIFT(LD, ST, MAX, ADD, a, b, c, d, zr, vr) \
	MOVQ AX, BX; \
	SUBQ R9, BX; \
	LD (DI)(BX*8), a; \
	MAX a, zr, b; \
	LD (SI)(AX*8), c; \
	MAX b, c, c; \
	ADD vr, c, c; \
	LD (DI)(AX*8), d; \
	MAX c, d, d; \
	ST d, (DI)(AX*8)

#define VPLAIN(LD, ST, MAX, ADD, a, d, vr) \
	LD (SI)(AX*8), a; \
	ADD vr, a, a; \
	LD (DI)(AX*8), d; \
	MAX a, d, d; \
	ST d, (DI)(AX*8)

// func rowMaxAVX(r, p []float64, wb int, z, v float64): rowMaxSSE four
// cells at a time, then a pair and an odd cell per segment.
TEXT ·rowMaxAVX(SB), NOSPLIT, $0-72
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), CX
	MOVQ p_base+24(FP), SI
	MOVQ wb+48(FP), R9
	VBROADCASTSD z+56(FP), Y6
	VBROADCASTSD v+64(FP), Y7
	SECONDFROM
	MOVQ CX, AX
shiftQuads:
	SUBQ $4, AX
	CMPQ AX, R8
	JLT shiftPair
	VSHIFT(VMOVUPD, VMOVUPD, VMAXPD, VADDPD, Y1, Y3, Y4, Y0, Y6, Y7)
	JMP shiftQuads
shiftPair:
	ADDQ $2, AX
	CMPQ AX, R8
	JLT shiftNoPair
	VSHIFT(VMOVUPD, VMOVUPD, VMAXPD, VADDPD, X1, X3, X4, X0, X6, X7)
	JMP shiftOdd
shiftNoPair:
	ADDQ $2, AX
shiftOdd:
	DECQ AX
	CMPQ AX, R8
	JLT below
	VSHIFT(VMOVSD, VMOVSD, VMAXSD, VADDSD, X1, X3, X4, X0, X6, X7)
below:
	MOVQ R8, AX
plainQuads:
	SUBQ $4, AX
	JLT plainPair
	VPLAIN(VMOVUPD, VMOVUPD, VMAXPD, VADDPD, Y1, Y0, Y7)
	JMP plainQuads
plainPair:
	ADDQ $2, AX
	JLT plainNoPair
	VPLAIN(VMOVUPD, VMOVUPD, VMAXPD, VADDPD, X1, X0, X7)
	JMP plainOdd
plainNoPair:
	ADDQ $2, AX
plainOdd:
	DECQ AX
	JLT done
	VPLAIN(VMOVSD, VMOVSD, VMAXSD, VADDSD, X1, X0, X7)
done:
	VZEROUPPER
	RET

// spreadBits puts bit i of its index into byte i, for four cells' codes.
DATA spreadBits<>+0(SB)/8, $0x0000000100000000
DATA spreadBits<>+8(SB)/8, $0x0000010100000100
DATA spreadBits<>+16(SB)/8, $0x0001000100010000
DATA spreadBits<>+24(SB)/8, $0x0001010100010100
DATA spreadBits<>+32(SB)/8, $0x0100000101000000
DATA spreadBits<>+40(SB)/8, $0x0100010101000100
DATA spreadBits<>+48(SB)/8, $0x0101000101010000
DATA spreadBits<>+56(SB)/8, $0x0101010101010100
GLOBL spreadBits<>(SB), RODATA|NOPTR, $64

// VBLEND is BLEND in AVX's form on registers a0, a1, a2 (X or Y); a1 and
// a2 are lost.
#define VBLEND(R, a0, a1, a2) \
	VCMPPD $1, a1, a0, a2; \
	VMOVMSKPD a2, R; \
	VANDPD a2, a1, a1; \
	VANDNPD a0, a2, a2; \
	VORPD a1, a2, a0

// VSHIFTTRACED is SHIFTTRACED in AVX's form on registers a0, a1, a2, a5
// (X or Y), z+v in zv and v in vr; R10, R11 and R12 get the masks.
#define VSHIFTTRACED(LD, ST, a0, a1, a2, a5, zv, vr) \
	MOVQ AX, BX; \
	SUBQ R9, BX; \
	LD (DI)(BX*8), a5; \
	VADDPD vr, a5, a5; \
	LD (DI)(AX*8), a0; \
	LD (SI)(AX*8), a1; \
	VADDPD vr, a1, a1; \
	VBLEND(R10, a0, a1, a2); \
	VMOVAPD zv, a1; \
	VBLEND(R11, a0, a1, a2); \
	VMOVAPD a5, a1; \
	VBLEND(R12, a0, a1, a2); \
	ST a0, (DI)(AX*8)

// VCODES stores at c[AX] on (STB: MOVL four, MOVW two, MOVB one) the codes
// of the masks in R10 (p[b]+v), R11 (z+v) and R12 (r[b−wb]+v), a bit per
// cell: a code's low bit is set for 1 and 3, its high bit for 2 and 3, so
// the low bits are (R10 &^ R11) | R12 and the high ones R11 | R12.
#define VCODES(STB) \
	MOVQ R11, R13; \
	NOTQ R13; \
	ANDQ R13, R10; \
	ORQ R12, R10; \
	ORQ R12, R11; \
	LEAQ spreadBits<>(SB), R13; \
	MOVL (R13)(R10*4), R10; \
	MOVL (R13)(R11*4), R11; \
	SHLL $1, R11; \
	ORL R11, R10; \
	STB R10, (DX)(AX*1)

// VPLAINTRACED is PLAINTRACED in AVX's form; R11 and R12 are cleared, so
// that VCODES reads R10's mask alone.
#define VPLAINTRACED(LD, ST, a0, a1, a2, vr) \
	LD (DI)(AX*8), a0; \
	LD (SI)(AX*8), a1; \
	VADDPD vr, a1, a1; \
	VBLEND(R10, a0, a1, a2); \
	ST a0, (DI)(AX*8); \
	XORQ R11, R11; \
	XORQ R12, R12

// func rowMaxTracedAVX(r, p []float64, c []int8, wb int, z, v float64):
// rowMaxTracedSSE four cells at a time, then a pair and an odd cell per
// segment.
TEXT ·rowMaxTracedAVX(SB), NOSPLIT, $0-96
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), CX
	MOVQ p_base+24(FP), SI
	MOVQ c_base+48(FP), DX
	MOVQ wb+72(FP), R9
	VBROADCASTSD v+88(FP), Y7
	VBROADCASTSD z+80(FP), Y6
	VADDPD Y7, Y6, Y6
	SECONDFROM
	MOVQ CX, AX
shiftQuads:
	SUBQ $4, AX
	CMPQ AX, R8
	JLT shiftPair
	VSHIFTTRACED(VMOVUPD, VMOVUPD, Y0, Y1, Y2, Y5, Y6, Y7)
	VCODES(MOVL)
	JMP shiftQuads
shiftPair:
	ADDQ $2, AX
	CMPQ AX, R8
	JLT shiftNoPair
	VSHIFTTRACED(VMOVUPD, VMOVUPD, X0, X1, X2, X5, X6, X7)
	VCODES(MOVW)
	JMP shiftOdd
shiftNoPair:
	ADDQ $2, AX
shiftOdd:
	DECQ AX
	CMPQ AX, R8
	JLT below
	VSHIFTTRACED(VMOVSD, VMOVSD, X0, X1, X2, X5, X6, X7)
	VCODES(MOVB)
below:
	MOVQ R8, AX
plainQuads:
	SUBQ $4, AX
	JLT plainPair
	VPLAINTRACED(VMOVUPD, VMOVUPD, Y0, Y1, Y2, Y7)
	VCODES(MOVL)
	JMP plainQuads
plainPair:
	ADDQ $2, AX
	JLT plainNoPair
	VPLAINTRACED(VMOVUPD, VMOVUPD, X0, X1, X2, X7)
	VCODES(MOVW)
	JMP plainOdd
plainNoPair:
	ADDQ $2, AX
plainOdd:
	DECQ AX
	JLT done
	VPLAINTRACED(VMOVSD, VMOVSD, X0, X1, X2, X7)
	VCODES(MOVB)
done:
	VZEROUPPER
	RET
