// layout.prefetch_l1 and cuda.prefetch_l1: verifier errors (shared memory, a `like` whose
// shape is not the view's, a `like` of other threads than the block's).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.prefetch_l1': a prefetch into L1 is of global memory; this view is in smem
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!S = !layout.tensor<f32, #layout.cute<32:1>, smem>
func.func @shared(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{a prefetch into L1 is of global memory; this view is in smem}}
    layout.prefetch_l1 %s {like = tensor<32xf32, #b>} : !S
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!T = !layout.tensor<f32, #layout.cute<32:1>, gmem>
func.func @shape(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{}}
    layout.prefetch_l1 %t {like = tensor<64xf32, #b>} : !T
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
!T = !layout.tensor<f32, #layout.cute<64:1>, gmem>
func.func @threads(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{spans 64 threads but the block has 32}}
    layout.prefetch_l1 %t {like = tensor<64xf32, #b>} : !T
  }
  func.return
}

// -----

func.func @cuda_shared(%m: memref<64xf32, 3 : i64>, %i: index) {
  // expected-error @+1 {{'cuda.prefetch_l1' prefetches global memory, not shared memory}}
  cuda.prefetch_l1 %m[%i] : memref<64xf32, 3 : i64>
  func.return
}
