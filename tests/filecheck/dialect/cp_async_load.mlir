// layout.cp_async_load (dialects/layout_tma.py): round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../lower-to-gpu/cp_async_load.mlir | tilec | filecheck %s

// CHECK-LABEL: func.func @edges
// CHECK:      %bar = layout.mbarrier_init {count = 128 : i64}
// CHECK-NEXT: layout.cp_async_load %ta, %s, %bar : !layout.tensor<f16, #layout.cute<(64,64):(136,1)>, gmem, masked>, !layout.tensor<f16, {{.*}}, smem>
// CHECK-LABEL: func.func @box
// CHECK:      layout.cp_async_load %ta, %s, %bar

!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @gmem_to_gmem(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %s = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 32 : i64}
    // expected-error @+1 {{cp_async_load copies gmem to smem, got gmem -> gmem}}
    layout.cp_async_load %g, %s, %bar : !G, !G
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,64):(1,64)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @columns(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 32 : i64}
    // expected-error @+1 {{cp_async_load copies rows of stride 1 (contiguous), got 64}}
    layout.cp_async_load %g, %s, %bar : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,60):(60,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,60):(60,1)>, smem>
func.func @short_runs(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 32 : i64}
    // expected-error @+1 {{cp_async_load needs rows of whole 16-byte runs: row extent and stride multiples of 8 elements, got 60 and 60}}
    layout.cp_async_load %g, %s, %bar : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @outside(%p: !layout.ptr<f16, align 16>, %b: !layout.mbarrier) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %s = layout.view %p : !layout.ptr<f16, align 16> -> !G
  // expected-error @+1 {{layout.cp_async_load must be inside a layout.launch}}
  layout.cp_async_load %g, %g, %b : !G, !G
  func.return
}
