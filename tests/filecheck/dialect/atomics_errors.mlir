// layout.atomic_add / layout.fence / cuda.atomic_add / cuda.fence: verifier errors
// (scope, order, memory space, element type, coordinates; round trip: atomics.mlir).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.atomic_add': atomic_add scope must be cta, gpu or sys, got 'grid'
!C = !layout.tensor<i32, #layout.cute<(64):(1)>, gmem>
func.func @scope(%C: !C, %t: index, %one: i32) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{atomic_add scope must be cta, gpu or sys, got 'grid'}}
    %old = layout.atomic_add %one, %C[%t] {scope = "grid"} : i32, !C -> i32
  }
  func.return
}

// -----

!C = !layout.tensor<i32, #layout.cute<(64):(1)>, gmem>
func.func @order(%C: !C, %t: index, %one: i32) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{atomic_add order must be relaxed, acquire, release or acq_rel, got 'seq_cst'}}
    %old = layout.atomic_add %one, %C[%t] {order = "seq_cst"} : i32, !C -> i32
  }
  func.return
}

// -----

!S = !layout.tensor<i32, #layout.cute<(64):(1)>, smem>
func.func @shared(%t: index, %one: i32) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %S = layout.alloc : !S
    // expected-error @+1 {{layout.atomic_add takes a view of global memory (gmem), got smem}}
    %old = layout.atomic_add %one, %S[%t] : i32, !S -> i32
  }
  func.return
}

// -----

!F = !layout.tensor<f32, #layout.cute<(64):(1)>, gmem>
func.func @element(%F: !F, %t: index, %one: i32) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.atomic_add adds to i32 elements, the view's are f32}}
    %old = layout.atomic_add %one, %F[%t] : i32, !F -> i32
  }
  func.return
}

// -----

!M = !layout.tensor<i32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @coords(%M: !M, %t: index, %one: i32) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.atomic_add takes one index per top-level mode (2) or one, got 3}}
    %old = layout.atomic_add %one, %M[%t, %t, %t] : i32, !M -> i32
  }
  func.return
}

// -----

!C = !layout.tensor<i32, #layout.cute<(64):(1)>, gmem>
func.func @outside(%C: !C, %t: index, %one: i32) {
  // expected-error @+1 {{layout.atomic_add must be inside a layout.launch}}
  %old = layout.atomic_add %one, %C[%t] : i32, !C -> i32
  func.return
}

// -----

func.func @fence_order() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{fence order must be acq_rel or sc, got 'release'}}
    layout.fence {order = "release"}
  }
  func.return
}

// -----

func.func @gpu_shared(%m: memref<64xi32, 3 : i64>, %i: index, %x: i32) {
  // expected-error @+1 {{'cuda.atomic_add' takes global memory, got memref<64xi32, 3 : i64>}}
  %old = cuda.atomic_add %m[%i], %x {scope = "gpu", order = "relaxed"} : memref<64xi32, 3 : i64>
  func.return
}

// -----

func.func @gpu_fence() {
  // expected-error @+1 {{fence scope must be cta, gpu or sys, got 'cluster'}}
  cuda.fence {scope = "cluster", order = "acq_rel"}
  func.return
}
