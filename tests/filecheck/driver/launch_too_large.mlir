// The CPU executor's launch-size limit counts what each block accesses (issue 18: it
// counted the whole tensor a block only tiles, "4194304 elements per block over 2048
// blocks is too large"). Tiles of a 2048x2048 tensor run; a whole-tensor copy inside
// every block of the same grid is refused, naming the view and the count.
// RUN: not tilec %s --split-input-file --run cpu 2>&1 | filecheck %s --check-prefixes=CHECK,ERR

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

// -----

// ERR: launch_too_large.mlir:[[# @LINE + 8]]:5: error: 'layout.copy': its operand !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem> has 4194304 elements, accessed by each of the 2048 blocks: 8589934592 in all is too large for the CPU reference executor (at most 268435456); run a smaller instance (--arg) or check it with --run gpu
func.func @whole(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem>
  %c1 = arith.constant 1 : index
  %g = arith.constant 2048 : index
  layout.launch grid(%g, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem>, !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem>
  }
  func.return
}
