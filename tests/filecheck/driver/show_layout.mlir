// `tilec show-layout`: CuTe print_layout, thread-value, and Gluon blocked layouts.

// RUN: tilec show-layout '(4,8):(8,1)' | filecheck %s --check-prefix=CUTE --match-full-lines --strict-whitespace
// CUTE:(4,8):(8,1)
// CUTE-NEXT:       0    1    2    3    4    5    6    7 
// CUTE-NEXT:    +----+----+----+----+----+----+----+----+
// CUTE-NEXT: 0  |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |
// CUTE-NEXT:    +----+----+----+----+----+----+----+----+
// CUTE-NEXT: 1  |  8 |  9 | 10 | 11 | 12 | 13 | 14 | 15 |
// CUTE-NEXT:    +----+----+----+----+----+----+----+----+
// CUTE-NEXT: 2  | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23 |
// CUTE-NEXT:    +----+----+----+----+----+----+----+----+
// CUTE-NEXT: 3  | 24 | 25 | 26 | 27 | 28 | 29 | 30 | 31 |
// CUTE-NEXT:    +----+----+----+----+----+----+----+----+

// RUN: tilec show-layout --tv '((4,8),4):((32,1),8)' --shape 8x16 | filecheck %s --check-prefix=TV
// TV: ((4,8),4):((32,1),8)
// TV: 0  |  T0V0 |  T0V1 |  T0V2 |  T0V3 |  T1V0 |
// TV: 1  |  T4V0 |  T4V1 |

// The Gluon layouts tutorial's BlockedLayout([2,4],[16,2],[2,2],[1,0]) over its 64x16 block.
// RUN: tilec show-layout --blocked '[2,4],[16,2],[2,2],[1,0]' --shape 64x16 --rows 4,2 | filecheck %s --check-prefix=BLOCKED --match-full-lines
// BLOCKED:{{\[\[}}  T0:0,   T0:1,   T0:2,   T0:3,   T1:0,   T1:1,   T1:2,   T1:3,  T32:0,  T32:1,  T32:2,  T32:3,  T33:0,  T33:1,  T33:2,  T33:3],
// BLOCKED-NEXT: [  T0:4,   T0:5,   T0:6,   T0:7,   T1:4,   T1:5,   T1:6,   T1:7,  T32:4,  T32:5,  T32:6,  T32:7,  T33:4,  T33:5,  T33:6,  T33:7],
// BLOCKED-NEXT: [  T2:0,   T2:1,   T2:2,   T2:3,   T3:0,   T3:1,   T3:2,   T3:3,  T34:0,  T34:1,  T34:2,  T34:3,  T35:0,  T35:1,  T35:2,  T35:3],
// BLOCKED-NEXT: [  T2:4,   T2:5,   T2:6,   T2:7,   T3:4,   T3:5,   T3:6,   T3:7,  T34:4,  T34:5,  T34:6,  T34:7,  T35:4,  T35:5,  T35:6,  T35:7],
// BLOCKED-NEXT: ...
// BLOCKED-NEXT: [ T94:0,  T94:1,  T94:2,  T94:3,  T95:0,  T95:1,  T95:2,  T95:3, T126:0, T126:1, T126:2, T126:3, T127:0, T127:1, T127:2, T127:3],
// BLOCKED-NEXT: [ T94:4,  T94:5,  T94:6,  T94:7,  T95:4,  T95:5,  T95:6,  T95:7, T126:4, T126:5, T126:6, T126:7, T127:4, T127:5, T127:6, T127:7]]

// The tutorial's warp tile and CTA tiles, from the attribute's text.
// RUN: tilec show-layout --blocked '#layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>' --picture warp --rows 2,1 | filecheck %s --check-prefix=WARP --match-full-lines
// WARP:{{\[\[}} T0:0,  T0:1,  T0:2,  T0:3,  T1:0,  T1:1,  T1:2,  T1:3],
// WARP-NEXT: [ T0:4,  T0:5,  T0:6,  T0:7,  T1:4,  T1:5,  T1:6,  T1:7],
// WARP-NEXT: ...
// WARP-NEXT: [T30:4, T30:5, T30:6, T30:7, T31:4, T31:5, T31:6, T31:7]]
// RUN: tilec show-layout --blocked '[2,4],[16,2],[2,2],[1,0]' --picture cta --shape 128x128 | filecheck %s --check-prefix=CTA --match-full-lines
// CTA:{{\[\[}} B0,  B1,  B2,  B3,  B4,  B5,  B6,  B7],
// CTA-NEXT: [ B8,  B9, B10, B11, B12, B13, B14, B15]]

// RUN: tilec show-layout --convert '[1,4],[8,4],[4,1],[1,0]' '[4,1],[4,8],[1,4],[0,1]' --shape 32x32 --rows 1,0 | filecheck %s --check-prefix=CONVERT
// CONVERT: before: {{\[\[}} T0:0,
// CONVERT: after: {{\[\[}} T0:0,
// CONVERT: elements change thread ({{[0-9]+}} within a warp, {{[0-9]+}} across warps)

// RUN: rm -f %t.svg
// RUN: tilec show-layout --blocked '[2,4],[16,2],[2,2],[1,0]' --shape 64x16 --svg %t.svg > /dev/null
// RUN: filecheck %s --check-prefix=SVG < %t.svg
// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: <rect class="cell" {{.*}}><title>(0, 0): warp 0, lane 0, register 0 (T0)</title></rect>
// SVG: </svg>

// RUN: not tilec show-layout '(4,8):(1)' 2>&1 | filecheck %s --check-prefix=ERR
// ERR: tilec: error: invalid layout '#layout.cute<(4,8):(1)>': invalid layout: Layout: shape (4,8) and stride (1) are not congruent
// RUN: not tilec show-layout --blocked '[2,4],[16,2],[2,2],[1,0]' 2>&1 | filecheck %s --check-prefix=NOSHAPE
// NOSHAPE: tilec: error: drawing a distributed layout needs the tensor shape: --shape MxN
// RUN: not tilec show-layout 2>&1 | filecheck %s --check-prefix=NOTHING
// NOTHING: tilec: error: show-layout takes one of: LAYOUT, --tv TV, --blocked SPEC, --convert A B
