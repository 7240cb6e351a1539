// RUN: not tilec %s -p tile 2>&1 | filecheck %s
// A realign strategy written on a copy whose views do not state their misalignments (a
// 16-byte aligned pointer moved by a scalar layout.addptr) is a located error.

// CHECK: realign_facts.mlir:9:3: error: 'layout.copy': tile: a copy of strategy realign copies rows contiguous in both views
func.func @no_facts(%src: !layout.ptr<f16, align 2>, %dst: !layout.ptr<f16, align 2>) {
  %a = layout.view %src : !layout.ptr<f16, align 2> -> !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f16, align 2> -> !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  layout.copy %a, %b {strategy = #layout.copy_strategy<realign>} : !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>, !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  func.return
}
