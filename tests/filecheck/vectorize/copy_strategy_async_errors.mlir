// A copy whose strategy is async but whose fragments cp.async cannot move (a transpose
// of f16: each thread's elements are 2 bytes apart from nothing) is a located error of
// vectorize, not a plain copy.
// RUN: not tilec %s -p "tile,distribute,vectorize" 2>&1 | filecheck %s
// CHECK: copy_strategy_async_errors.mlir:[[# @LINE + 12]]:5: error: 'layout.copy': vectorize: copy strategy async: each thread's elements come in runs of 2 contiguous bytes in both views; cp.async moves 4, 8 or 16
!G = !layout.tensor<f16, #layout.cute<(64,64):(1,64)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(16,16):(1,64)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, smem>
func.func @transpose(%src: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s {strategy = #layout.copy_strategy<async>} : !T, !S
  }
  func.return
}
