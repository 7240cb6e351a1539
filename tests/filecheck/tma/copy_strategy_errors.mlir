// A copy whose strategy the passes cannot keep to is a located error, never a silent
// fallback: tma on views TMA cannot copy (a pointer not known to be 16-byte aligned),
// on a target without TMA, with the pass disabled; async on elements cp.async cannot
// move; a tma or async copy reaching lower-to-gpu as a plain copy.
// RUN: not tilec %s -p tma 2>&1 | filecheck %s --check-prefix=VIEWS
// RUN: not tilec %s -p "tma{enable=false}" 2>&1 | filecheck %s --check-prefix=OFF
// RUN: not tilec %s -p "expand-iterators,tile,distribute,vectorize,lower-to-gpu" 2>&1 | filecheck %s --check-prefix=LOWER
// VIEWS: copy_strategy_errors.mlir:[[# @LINE + 16]]:5: error: 'layout.copy': tma: copy strategy tma, but this copy cannot be a TMA copy: {{.*}}16
// OFF: copy_strategy_errors.mlir:[[# @LINE + 15]]:5: error: 'layout.copy': tma: copy strategy tma, but this copy cannot be a TMA copy: the tma pass is disabled (enable=false)
// LOWER: copy_strategy_errors.mlir:[[# @LINE + 14]]:5: error: 'layout.copy': lower-to-gpu: a copy with strategy tma reached the lowering as a plain copy (the tma pass makes it a TMA copy: run them, e.g. -p default)
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @unaligned(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s {strategy = #layout.copy_strategy<tma>} : !T, !S
    layout.copy %s, %tb : !S, !T
  }
  func.return
}
