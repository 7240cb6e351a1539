// layout.cp_async_arrive (dialects/layout_tma.py): round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../lower-to-gpu/cp_async_arrive.mlir | tilec | filecheck %s

// CHECK-LABEL: func.func @ring
// CHECK:      %bars = layout.mbarrier_array {count = 32 : i64, stages = 2 : i64}
// CHECK:      %b0 = layout.mbarrier_at %bars[%c0] : !layout.mbarriers<2>
// CHECK-NEXT: layout.cp_async_arrive %b0
// CHECK:      layout.cp_async_arrive %b1

func.func @fewer_arrivals() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 32 : i64}
    // expected-error @+1 {{cp_async_arrive makes one arrival per thread of the block (64), but the mbarrier counts 32}}
    layout.cp_async_arrive %bar
  }
  func.return
}

// -----

func.func @array_fewer_arrivals() {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bars = layout.mbarrier_array {count = 1 : i64, stages = 2 : i64}
    %b = layout.mbarrier_at %bars[%c0] : !layout.mbarriers<2>
    // expected-error @+1 {{cp_async_arrive makes one arrival per thread of the block (64), but the mbarrier counts 1}}
    layout.cp_async_arrive %b
  }
  func.return
}
