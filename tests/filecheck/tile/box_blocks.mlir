// RUN: tilec %s -p 'copy-strategy,tile{box_blocks=5}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{box_blocks=3}' | filecheck %s --check-prefix=THREE
// RUN: tilec %s -p 'copy-strategy,tile{box_blocks=0}' | filecheck %s --check-prefix=NONE
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_blocks=5}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{box_blocks=9}' 2>&1 | filecheck %s --check-prefix=ERR
// The blocks a multiprocessor a box<rows> launch asks to hold (the tile option
// box_blocks: its tilec.min_blocks, NVRTC's __launch_bounds__(256, 5); both tilec.copy_'s
// rows kernel and the Program's take 48 registers through NVRTC, ptxas schedules the
// phase-2 loads differently with it: copy_ x1.013 on the H200); 5 by default for rows
// (_box_tile.BOX_BLOCKS), 0 none. W = 37, D = 17, as tile/box_rows_pitch.mlir's.

// EQ: @rows: equivalent after
// ERR: tile: box_blocks=9 must be in [0, 8]

// CHECK-LABEL: func.func @rows
// CHECK:         layout.launch grid({{.*}}) threads(256) attributes {tilec.min_blocks = 5 : i64
// THREE-LABEL: func.func @rows
// THREE:         layout.launch grid({{.*}}) threads(256) attributes {tilec.min_blocks = 3 : i64
// NONE-LABEL: func.func @rows
// NONE-NOT:      tilec.min_blocks
func.func @rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,37,70,17):(49000,1,700,37)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,37,70,17):(44030,1190,17,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,37,70,17):(49000,1,700,37)>, gmem>, !layout.tensor<i8, #layout.cute<(3,37,70,17):(44030,1190,17,1)>, gmem>
  func.return
}
