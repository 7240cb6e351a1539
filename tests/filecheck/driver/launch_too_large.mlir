// The CPU executor's launch-size limit, when a block does access a whole 2048x2048
// tensor (a copy of it inside every block of a 2048-block grid): the message names the
// view, what each block accesses and the total.
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s

// CHECK: launch_too_large.mlir:[[# @LINE + 8]]:5: error: 'layout.copy': its operand !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem> has 4194304 elements, accessed by each of the 2048 blocks: 8589934592 in all is too large for the CPU reference executor (at most 268435456); run a smaller instance (--arg) or check it with --run gpu
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
