// Round trip of the ops on distributed values (load, store, convert_layout, splat,
// arange, expand_dims, broadcast, reduce), in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#l = #layout.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>
#s0 = #layout.slice<{dim = 0, parent = #b}>
#s1 = #layout.slice<{dim = 1, parent = #b}>
!T = !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>

// CHECK-LABEL: func.func @load_store(
// CHECK: layout.launch grid(%c, %c, %c) threads(128) {
// CHECK: %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem> -> tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: layout.store %v, %t : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>
func.func @load_store(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %t : !T -> tensor<32x16xf32, #b>
    layout.store %v, %t : tensor<32x16xf32, #b>, !T
  }
  func.return
}

// `other` fills the elements missing from a masked view; `vector` is set by `vectorize`.
// CHECK-LABEL: func.func @load_store_masked(
// CHECK: %v = layout.load %t, %zero : f32 {vector = 4 : i64} : !layout.tensor<f32, #layout.cute<(32,16):(?,1)>, gmem, masked> -> tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @load_store_masked(%t: !layout.tensor<f32, #layout.cute<(32,16):(?,1)>, gmem, masked>, %zero: f32) {
  %v = layout.load %t, %zero : f32 {vector = 4 : i64} : !layout.tensor<f32, #layout.cute<(32,16):(?,1)>, gmem, masked> -> tensor<32x16xf32, #b>
  layout.store %v, %t {vector = 4 : i64} : tensor<32x16xf32, #b>, !layout.tensor<f32, #layout.cute<(32,16):(?,1)>, gmem, masked>
  func.return
}

// CHECK-NEXT: layout.store %v, %t {vector = 4 : i64} : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(32,16):(?,1)>, gmem, masked>
// CHECK-LABEL: func.func @convert_layout(
// CHECK: %w = layout.convert_layout %v : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<32x16xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK: %x = layout.convert_layout %w : tensor<32x16xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>> -> tensor<32x16xf32, #layout.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>>
func.func @convert_layout(%v: tensor<32x16xf32, #b>) {
  %w = layout.convert_layout %v : tensor<32x16xf32, #b> -> tensor<32x16xf32, #c>
  %x = layout.convert_layout %w : tensor<32x16xf32, #c> -> tensor<32x16xf32, #l>
  func.return
}

// CHECK-LABEL: func.func @splat(
// CHECK: %v = layout.splat %x : f32 -> tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @splat(%x: f32) {
  %v = layout.splat %x : f32 -> tensor<32x16xf32, #b>
  func.return
}

// CHECK-LABEL: func.func @arange_expand_broadcast(
// CHECK: %r = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: %e = layout.expand_dims %r {axis = 0 : i64} : tensor<16xi32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<1x16xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %bc = layout.broadcast %e : tensor<1x16xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<32x16xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @arange_expand_broadcast() {
  %r = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #s0>
  %e = layout.expand_dims %r {axis = 0 : i64} : tensor<16xi32, #s0> -> tensor<1x16xi32, #b>
  %bc = layout.broadcast %e : tensor<1x16xi32, #b> -> tensor<32x16xi32, #b>
  func.return
}

// CHECK-LABEL: func.func @reduce(
// CHECK: %sum = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: %mul = layout.reduce %v {axis = 1 : i64, kind = "mul"} : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: %max = layout.reduce %v {axis = 0 : i64, kind = "max"} : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16xf32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: %min = layout.reduce %v {axis = 0 : i64, kind = "min"} : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16xf32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
func.func @reduce(%v: tensor<32x16xf32, #b>) {
  %sum = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<32x16xf32, #b> -> tensor<32xf32, #s1>
  %mul = layout.reduce %v {axis = 1 : i64, kind = "mul"} : tensor<32x16xf32, #b> -> tensor<32xf32, #s1>
  %max = layout.reduce %v {axis = 0 : i64, kind = "max"} : tensor<32x16xf32, #b> -> tensor<16xf32, #s0>
  %min = layout.reduce %v {axis = 0 : i64, kind = "min"} : tensor<32x16xf32, #b> -> tensor<16xf32, #s0>
  func.return
}
