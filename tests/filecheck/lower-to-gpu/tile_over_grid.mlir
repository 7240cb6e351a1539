// RUN: not tilec %s -p default -t cuda 2>&1 | filecheck %s
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s --check-prefix=CPU
// The over-provisioned grid of masked_tile_outside.mlir with an unmasked tile: the CPU
// executor refuses the tiles past the end, and so does the CUDA path (it compiled
// them to out-of-bounds accesses before), naming the grid, the mode and the fix.

// CHECK: tile_over_grid.mlir:[[# @LINE + 11]]:5: error: 'layout.tile': tile coordinate 1 takes 4 values but mode 1 of 8 elements has 1 tiles of 8: the last tiles lie outside the tensor; make the result type `masked` (they are then empty) or launch 1 blocks along it
// CPU: tile_over_grid.mlir:[[# @LINE + 10]]:5: error: 'layout.tile': thread 0 of block 4 (x=0, y=1): tile coordinate 1 of mode 1 is out of range: tiles of 8 of a mode of 8 elements (a `masked` result type makes tiles past the end empty)
!G = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @over(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.tile %a[%bx, %by] {tile = array<i64: 8, 8>} : !G -> !T
    %u = layout.tile %b[%bx, %by] {tile = array<i64: 8, 8>} : !G -> !T
    layout.copy %t, %u : !T, !T
  }
  func.return
}
