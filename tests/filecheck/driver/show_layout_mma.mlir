// `tilec show-layout` of tensor-core layouts: the mma.m16n8k16 accumulator (PTX ISA
// figure of C/D: T<lane>:<c_i>) and its A operand (figure of A: a0..a7), a 2x2-warp
// accumulator, and an NVMMA shared layout (its swizzled CuTe offsets).

// RUN: tilec show-layout '#layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>' --shape 16x8 | filecheck %s --check-prefix=ACC --match-full-lines
// ACC:{{\[\[}} T0:0,  T0:1,  T1:0,  T1:1,  T2:0,  T2:1,  T3:0,  T3:1],
// ACC-NEXT: [ T4:0,  T4:1,  T5:0,  T5:1,  T6:0,  T6:1,  T7:0,  T7:1],
// ACC-NEXT: [ T8:0,  T8:1,  T9:0,  T9:1, T10:0, T10:1, T11:0, T11:1],
// ACC-NEXT: [T12:0, T12:1, T13:0, T13:1, T14:0, T14:1, T15:0, T15:1],
// ACC-NEXT: [T16:0, T16:1, T17:0, T17:1, T18:0, T18:1, T19:0, T19:1],
// ACC-NEXT: [T20:0, T20:1, T21:0, T21:1, T22:0, T22:1, T23:0, T23:1],
// ACC-NEXT: [T24:0, T24:1, T25:0, T25:1, T26:0, T26:1, T27:0, T27:1],
// ACC-NEXT: [T28:0, T28:1, T29:0, T29:1, T30:0, T30:1, T31:0, T31:1],
// ACC-NEXT: [ T0:2,  T0:3,  T1:2,  T1:3,  T2:2,  T2:3,  T3:2,  T3:3],
// ACC-NEXT: [ T4:2,  T4:3,  T5:2,  T5:3,  T6:2,  T6:3,  T7:2,  T7:3],
// ACC-NEXT: [ T8:2,  T8:3,  T9:2,  T9:3, T10:2, T10:3, T11:2, T11:3],
// ACC-NEXT: [T12:2, T12:3, T13:2, T13:3, T14:2, T14:3, T15:2, T15:3],
// ACC-NEXT: [T16:2, T16:3, T17:2, T17:3, T18:2, T18:3, T19:2, T19:3],
// ACC-NEXT: [T20:2, T20:3, T21:2, T21:3, T22:2, T22:3, T23:2, T23:3],
// ACC-NEXT: [T24:2, T24:3, T25:2, T25:3, T26:2, T26:3, T27:2, T27:3],
// ACC-NEXT: [T28:2, T28:3, T29:2, T29:3, T30:2, T30:3, T31:2, T31:3]]

// RUN: tilec show-layout '#layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>, kWidth = 2>' --shape 16x16 | filecheck %s --check-prefix=OPA --match-full-lines
// OPA:{{\[\[}} T0:0,  T0:1,  T1:0,  T1:1,  T2:0,  T2:1,  T3:0,  T3:1,  T0:4,  T0:5,  T1:4,  T1:5,  T2:4,  T2:5,  T3:4,  T3:5],
// OPA-NEXT: [ T4:0,  T4:1,  T5:0,  T5:1,  T6:0,  T6:1,  T7:0,  T7:1,  T4:4,  T4:5,  T5:4,  T5:5,  T6:4,  T6:5,  T7:4,  T7:5],
// OPA: [T28:0, T28:1, T29:0, T29:1, T30:0, T30:1, T31:0, T31:1, T28:4, T28:5, T29:4, T29:5, T30:4, T30:5, T31:4, T31:5],
// OPA-NEXT: [ T0:2,  T0:3,  T1:2,  T1:3,  T2:2,  T2:3,  T3:2,  T3:3,  T0:6,  T0:7,  T1:6,  T1:7,  T2:6,  T2:7,  T3:6,  T3:7],
// OPA: [T28:2, T28:3, T29:2, T29:3, T30:2, T30:3, T31:2, T31:3, T28:6, T28:7, T29:6, T29:7, T30:6, T30:7, T31:6, T31:7]]

// Four warps, row-major: warp 1 (T32..T63) owns columns 8..15 of rows 0..15, warp 2
// rows 16..31.
// RUN: tilec show-layout '#layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>' --shape 32x16 --rows 1,1 | filecheck %s --check-prefix=WARPS --match-full-lines
// WARPS:{{\[\[}}  T0:0,   T0:1,   T1:0,   T1:1,   T2:0,   T2:1,   T3:0,   T3:1,  T32:0,  T32:1,  T33:0,  T33:1,  T34:0,  T34:1,  T35:0,  T35:1],
// WARPS-NEXT: ...
// WARPS-NEXT: [ T92:2,  T92:3,  T93:2,  T93:3,  T94:2,  T94:3,  T95:2,  T95:3, T124:2, T124:3, T125:2, T125:3, T126:2, T126:3, T127:2, T127:3]]

// RUN: tilec show-layout '#layout.nvmma_shared<swizzle = 32, elementBitWidth = 16, transposed = false, shape = [8, 16]>' | filecheck %s --check-prefix=SHARED
// SHARED: Swizzle<1,3,3> o 0 o (8,16):(16,1)
// SHARED: 4  |  72 |  73 |  74 |  75 |  76 |  77 |  78 |  79 |  64 |  65 |  66 |  67 |  68 |  69 |  70 |  71 |
