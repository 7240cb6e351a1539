// layout.ptr_prefetch and cuda.prefetch_global_l2: verifier errors (not pointers, a mask
// of another shape, a layout of other threads than the block's, shared memory).
// RUN: tilec %s --split-input-file --verify-diagnostics
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @not_pointers(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #b>
    // expected-error @+1 {{}}
    layout.ptr_prefetch %i : tensor<32xi32, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b2 = #layout.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @mask_shape(%dst: !layout.ptr<f32, align 16>, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #b>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<32x!layout.ptr<f32>, #b>
    %qp = layout.addptr %q, %i : tensor<32x!layout.ptr<f32>, #b>, tensor<32xi32, #b>
    %j = layout.arange {start = 0 : i64, end = 64 : i64} : tensor<64xi32, #b2>
    %z = arith.constant dense<3> : tensor<64xi32, #b2>
    %m = layout.cmpi slt, %j, %z : tensor<64xi32, #b2>
    // expected-error @+1 {{the mask must be a tensor of i1 of the pointers' shape and layout}}
    layout.ptr_prefetch %qp mask %m : tensor<64xi1, #b2> : tensor<32x!layout.ptr<f32>, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
func.func @threads(%dst: !layout.ptr<f32, align 16>, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 64 : i64} : tensor<64xi32, #b>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<64x!layout.ptr<f32>, #b>
    %qp = layout.addptr %q, %i : tensor<64x!layout.ptr<f32>, #b>, tensor<64xi32, #b>
    // expected-error @+1 {{spans 64 threads but the block has 32}}
    layout.ptr_prefetch %qp : tensor<64x!layout.ptr<f32>, #b>
  }
  func.return
}

// -----

func.func @cuda_shared(%m: memref<64xf32, 3 : i64>, %i: index) {
  // expected-error @+1 {{'cuda.prefetch_global_l2' prefetches global memory, not shared memory}}
  cuda.prefetch_global_l2 %m[%i] : memref<64xf32, 3 : i64>
  func.return
}
