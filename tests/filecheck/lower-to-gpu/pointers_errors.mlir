// A convert_layout of pointers that moves them between threads: a located error,
// exit status 1 (convert the offsets or the loaded values instead).
// RUN: not tilec %s -p default 2>&1 | filecheck %s
// RUN: not tilec %s -p lower-to-gpu 2>&1 | filecheck %s

// CHECK: pointers_errors.mlir:[[# @LINE + 14]]:5: error: 'layout.convert_layout': convert_layout of a pointer tensor that moves elements between threads ({{shared|warp_shuffle}}) is not supported: convert the offsets before layout.addptr, or the loaded values, instead
#a = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#s = #layout.slice<{dim = 0, parent = #a}>
func.func @transposed(%dst: !layout.ptr<f32>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %p0 = layout.splat %dst : !layout.ptr<f32> -> tensor<16x32x!layout.ptr<f32>, #a>
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #s>
    %i1 = layout.expand_dims %i {axis = 0 : i64} : tensor<32xi32, #s> -> tensor<1x32xi32, #a>
    %o = layout.broadcast %i1 : tensor<1x32xi32, #a> -> tensor<16x32xi32, #a>
    %p = layout.addptr %p0, %o : tensor<16x32x!layout.ptr<f32>, #a>, tensor<16x32xi32, #a>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #c>
    %q = layout.convert_layout %p : tensor<16x32x!layout.ptr<f32>, #a> -> tensor<16x32x!layout.ptr<f32>, #c>
    layout.ptr_store %z, %q : tensor<16x32xf32, #c>, tensor<16x32x!layout.ptr<f32>, #c>
  }
  func.return
}
