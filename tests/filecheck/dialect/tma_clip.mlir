// `layout.tma_load {clip}` and `layout.mbarrier_expect_tx` (dialects/layout_tma.py): round
// trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../lower-to-gpu/tma_clip.mlir | tilec | filecheck %s
// RUN: tilec %S/../lower-to-gpu/tma_clip_tail.mlir | tilec | filecheck %s --check-prefix=TAIL

// CHECK-LABEL: func.func @tma_clip
// CHECK:      layout.mbarrier_expect_tx %bar, %bytes
// CHECK-NEXT: layout.mbarrier_arrive %bar
// CHECK-NEXT: layout.tma_load %ta, %s, %bar {clip} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem, masked>, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
// TAIL-LABEL: func.func @tma_clip_tail
// TAIL: layout.tma_load %ta, %s, %bar {clip, tail}

func.func @expect_too_many() {
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{mbarrier_expect_tx bytes must be in [0, 2^20), got 1048576}}
    layout.mbarrier_expect_tx %bar, %n
  }
  func.return
}

// -----

func.func @expect_outside_launch(%bar: !layout.mbarrier, %n: index) {
  // expected-error @+1 {{layout.mbarrier_expect_tx must be inside a layout.launch}}
  layout.mbarrier_expect_tx %bar, %n
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @clip_multicast(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{tma_load's clip is not with multicast}}
    layout.tma_load %g, %s, %bar {multicast = 3 : i64, clip} : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @tail_without_clip(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{tma_load's tail needs clip}}
    layout.tma_load %g, %s, %bar {tail} : !G, !S
  }
  func.return
}
