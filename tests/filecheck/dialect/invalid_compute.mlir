// Verifier and syntax errors of the compute ops on distributed values.
// RUN: tilec %s --split-input-file --verify-diagnostics

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @cmpf_ints(%i: tensor<32x16xi32, #b>) {
  // expected-error @+1 {{layout.cmpf compares floats, got i32}}
  %p = layout.cmpf olt, %i, %i : tensor<32x16xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @cmpi_predicate(%i: tensor<32x16xi32, #b>) {
  // expected-error @+1 {{unknown predicate 'olt'}}
  %p = layout.cmpi olt, %i, %i : tensor<32x16xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @select_layouts(%p: tensor<32x16xi1, #c>, %x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the condition and the values must have the same shape and distributed layout}}
  %m = layout.select %p, %x, %x : tensor<32x16xi1, #c>, tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @select_not_i1(%p: tensor<32x16xi8, #b>, %x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the condition is a tensor of i1, got tensor<32x16xi8}}
  %m = layout.select %p, %x, %x : tensor<32x16xi8, #b>, tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @extsi_narrower(%i: tensor<32x16xi32, #b>) {
  // expected-error @+1 {{layout.extsi: the result must be wider than the source (i32 to i8)}}
  %a = layout.extsi %i : tensor<32x16xi32, #b> to tensor<32x16xi8, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @sitofp_float(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{layout.sitofp casts integers to floats, got f32 to f16}}
  %a = layout.sitofp %x : tensor<32x16xf32, #b> to tensor<32x16xf16, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @cast_shape(%i: tensor<32x16xi8, #b>) {
  // expected-error @+1 {{source and result must have the same shape and distributed layout}}
  %a = layout.extsi %i : tensor<32x16xi8, #b> to tensor<16x32xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @scan_kind(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{kind must be one of add, mul, max, min}}
  %s = layout.scan %x {axis = 1 : i64, kind = "xor"} : tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @scan_axis(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{axis 2 out of range}}
  %s = layout.scan %x {axis = 2 : i64, kind = "add"} : tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @mask_layout(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>, %m: tensor<32x16xi1, #c>) {
  // expected-error @+1 {{the mask must be a tensor of i1 of the value's shape and layout}}
  %x = layout.load %t mask %m : tensor<32x16xi1, #c> : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @mask_type(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>, %v: tensor<32x16xf32, #b>, %m: tensor<32x16xi8, #b>) {
  // expected-error @+1 {{the mask must be a tensor of i1 of the value's shape and layout}}
  layout.store %v, %t mask %m : tensor<32x16xi8, #b> : tensor<32x16xf32, #b>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @reduce_region_layout(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the result layout must be #layout.slice<{dim = 1, parent = <the operands' layout>}>}}
  %m = layout.reduce_region %x {axis = 1 : i64} : tensor<32x16xf32, #b> -> tensor<32xf32, #layout.slice<{dim = 0, parent = #b}>> {
  ^bb0(%p: f32, %q: f32):
    %v = arith.maximumf %p, %q : f32
    layout.yield %v : f32
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #b}>
func.func @reduce_region_args(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the combiner takes two elements of each operand: (f32, f32)}}
  %m = layout.reduce_region %x {axis = 1 : i64} : tensor<32x16xf32, #b> -> tensor<32xf32, #r> {
  ^bb0(%p: f32):
    layout.yield %p : f32
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @permute_moves_data(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the result layout must be the source layout with its dims permuted (no data moves)}}
  %t = layout.permute %x {order = array<i64: 1, 0>} : tensor<32x16xf32, #b> -> tensor<16x32xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @permute_order(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{order must be a permutation of 0..1, got [1, 1]}}
  %t = layout.permute %x {order = array<i64: 1, 1>} : tensor<32x16xf32, #b> -> tensor<16x32xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#j = #layout.blocked<{sizePerThread = [1, 2, 2], threadsPerWarp = [8, 4, 1], warpsPerCTA = [4, 1, 1], order = [1, 2, 0]}>
func.func @join_layout(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the joined layout must hold the new minor dimension in register bit 0}}
  %z = layout.join %x, %x : tensor<32x16xf32, #b> -> tensor<32x16x2xf32, #j>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @gather_shape(%x: tensor<32x16xf32, #b>, %j: tensor<16x16xi32, #b>) {
  // expected-error @+1 {{the index must have the source's shape except along axis 1: [32, 16] and [16, 16]}}
  %g = layout.gather %x[%j] {axis = 1 : i64} : tensor<32x16xf32, #b>, tensor<16x16xi32, #b> -> tensor<16x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @gather_axis_past_rank(%x: tensor<32x16xf32, #b>, %j: tensor<32x16xi32, #b>) {
  // expected-error @+1 {{axis 2 out of range}}
  %g = layout.gather %x[%j] {axis = 2 : i64} : tensor<32x16xf32, #b>, tensor<32x16xi32, #b> -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @gather_float_index(%x: tensor<32x16xf32, #b>, %j: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the index is a tensor of integers}}
  %g = layout.gather %x[%j] {axis = 1 : i64} : tensor<32x16xf32, #b>, tensor<32x16xf32, #b> -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#f = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reshape_moves_data(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the result layout must give each thread the elements it holds (no data moves)}}
  %f = layout.reshape %x : tensor<32x16xf32, #b> -> tensor<512xf32, #f>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#f = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @reshape_count(%x: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{reshape keeps the element type and the number of elements: [32, 16] -> [256]}}
  %f = layout.reshape %x : tensor<32x16xf32, #b> -> tensor<256xf32, #f>
  func.return
}
