// layout.atomic_add / layout.fence (dialects/layout_atomic.py) and their GPU-level
// cuda.atomic_add / cuda.fence (dialects/cuda_atomic.py): round trip of the scopes
// and orders (verifier errors: atomics_errors.mlir).
// RUN: tilec %s | tilec | filecheck %s

// CHECK-LABEL: func.func @layout_level
// CHECK:       layout.fence {scope = "gpu", order = "acq_rel"}
// CHECK:       %old = layout.atomic_add %one, %C[%t] {scope = "gpu", order = "relaxed"} : i32, !layout.tensor<i32, #layout.cute<(64):(1)>, gmem> -> i32
// CHECK:       %acq = layout.atomic_add %one, %C[%t] {scope = "sys", order = "acq_rel"} : i32, !layout.tensor<i32, #layout.cute<(64):(1)>, gmem> -> i32
// CHECK:       layout.fence {scope = "cta", order = "sc"}
!C = !layout.tensor<i32, #layout.cute<(64):(1)>, gmem>
func.func @layout_level(%c: !layout.ptr<i32>) {
  %C = layout.view %c : !layout.ptr<i32> -> !C
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %one = arith.constant 1 : i32
    layout.fence {scope = "gpu", order = "acq_rel"}
    %old = layout.atomic_add %one, %C[%t] {scope = "gpu", order = "relaxed"} : i32, !C -> i32
    %acq = layout.atomic_add %one, %C[%t] {scope = "sys", order = "acq_rel"} : i32, !C -> i32
    layout.fence {scope = "cta", order = "sc"}
  }
  func.return
}

// CHECK-LABEL: func.func @gpu_level
// CHECK:       %old = cuda.atomic_add %m[%i], %x {scope = "gpu", order = "release"} : memref<64xi32>
// CHECK:       cuda.fence {scope = "gpu", order = "acq_rel"}
func.func @gpu_level(%m: memref<64xi32>, %i: index, %x: i32) {
  %old = cuda.atomic_add %m[%i], %x {scope = "gpu", order = "release"} : memref<64xi32>
  cuda.fence {scope = "gpu", order = "acq_rel"}
  func.return
}
