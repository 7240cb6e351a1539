// vectorize keeps to a copy's strategy: async fragments become cp.async even with
// async=false; simt fragments never do (though they could); an async copy whose
// elements cp.async cannot move is a located error. On a target without TMA a tma copy
// is an error of the tma pass.
// RUN: tilec %s -p "tile,distribute,vectorize{async=false}" | filecheck %s
// RUN: tilec %s -p "tile,distribute,vectorize" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p "tma" 2>&1 | filecheck %s --check-prefix=SM80
// EQ: @async_and_simt: equivalent after
// SM80: copy_strategy.mlir:[[# @LINE + 36]]:5: error: 'layout.copy': tma: copy strategy tma, but this copy cannot be a TMA copy: the target (sm_80) has no TMA (sm_90 has)

// CHECK-LABEL: func.func @async_and_simt
// CHECK:         layout.copy_async %{{.*}} : !layout.tensor<f32, #layout.cute<(1,1):(1024,16)>, gmem, vec #layout.cute<(1,4):(64,1)>>, !layout.tensor<f32, #layout.cute<(1,1):(256,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
// CHECK-NEXT:    layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK:         layout.copy %{{.*}} {strategy = #layout.copy_strategy<simt>} : !layout.tensor<f32, #layout.cute<(1,1):(256,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
// CHECK-NOT:     layout.copy_async
// CHECK-LABEL: func.func @tma_on_sm80
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
module attributes {tilec.target = "sm_80"} {
func.func @async_and_simt(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s {strategy = #layout.copy_strategy<async>} : !T, !S
    layout.copy %s, %tb {strategy = #layout.copy_strategy<simt>} : !S, !T
  }
  func.return
}
func.func @tma_on_sm80(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s {strategy = #layout.copy_strategy<tma>} : !T, !S
  }
  func.return
}
}
