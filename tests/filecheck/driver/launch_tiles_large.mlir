// Tiles of a 2048x2048 tensor, one 1x2048 row per block of a 2048-block grid: the CPU
// executor's launch-size limit counts the tile each block accesses, not the tensor it
// tiles (issue 18: "4194304 elements per block over 2048 blocks is too large").
// RUN: tilec %s --run cpu | filecheck %s

// CHECK: // @tiles on the CPU reference executor (seed 0): ok
!G = !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,2048):(2048,1)>, gmem>
func.func @tiles(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %g = arith.constant 2048 : index
  layout.launch grid(%g, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    layout.copy %ta, %tb : !T, !T
  }
  func.return
}
