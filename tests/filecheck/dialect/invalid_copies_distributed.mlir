// Verifier errors of copies and of the ops on distributed values.
// RUN: tilec %s --split-input-file --verify-diagnostics

func.func @copy_elt(%a: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, %b: !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>) {
  // expected-error @+1 {{element types disagree: f32 and f16 (a converting copy names its conversion: convert = "SRC->DST")}}
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

func.func @copy_convert_storage(%a: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, %b: !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>) {
  // expected-error @+1 {{convert = "float32->bfloat16": bfloat16 is stored as bf16, but the dest holds f16}}
  layout.copy %a, %b {convert = "float32->bfloat16"} : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

func.func @copy_convert_name(%a: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, %b: !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>) {
  // expected-error @+1 {{convert = "float32->half": expected "SRC->DST" with dtypes among float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool}}
  layout.copy %a, %b {convert = "float32->half"} : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

func.func @copy_size(%a: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, %b: !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>) {
  // expected-error @+1 {{copy between views of different sizes: 64 and 32 elements}}
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
  func.return
}

// -----

func.func @copy_masked(%a: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>, %b: !layout.tensor<f32, #layout.cute<64:1>, gmem>) {
  // expected-error @+1 {{a masked copy needs views of the same shape, got [8, 8] and [64]}}
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>, !layout.tensor<f32, #layout.cute<64:1>, gmem>
  func.return
}

// -----

func.func @copy_async_space(%a: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, %b: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>) {
  // expected-error @+1 {{copy_async copies global to shared memory, got gmem -> gmem}}
  layout.copy_async %a, %b : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

func.func @copy_async_2byte(%a: !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, smem>
    // expected-error @+1 {{copy_async moves 4, 8 or 16 bytes per element, got 2: vectorize first}}
    layout.copy_async %a, %s : !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f16, #layout.cute<(8,8):(8,1)>, smem>
  }
  func.return
}

// -----

func.func @barrier_outside() {
  // expected-error @+1 {{layout.barrier must be inside a layout.launch}}
  layout.barrier
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @load_elt(%t: !layout.tensor<f16, #layout.cute<(32,16):(16,1)>, gmem>) {
  // expected-error @+1 {{element types disagree: view of f16, value of f32}}
  %v = layout.load %t : !layout.tensor<f16, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @load_shape(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>) {
  // expected-error @+1 {{the view has shape [32, 16] but the value has shape [16, 32]}}
  %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<16x32xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @load_threads(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>, %c: index) {
  layout.launch grid(%c, %c, %c) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA =}}
    %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @load_other(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>, %o: f16) {
  // expected-error @+1 {{`other` must have the element type f32, got f16}}
  %v = layout.load %t, %o : f16 : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_rank(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>) {
  // expected-error @+1 {{encoding #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4],}}
  %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  func.return
}

// -----

func.func @load_plain(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>) {
  // expected-error @+1 {{expected a distributed tensor (tensor<...> with a #layout.blocked, #layout.slice, #layout.linear, #layout.nvidia_mma or #layout.dot_op encoding), got tensor<32x16xf32>}}
  %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @load_vec(%t: !layout.tensor<f32, #layout.cute<(32,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>) {
  // expected-error @+1 {{load and store take unvectorized views}}
  %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>> -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @store_elt(%v: tensor<32x16xf32, #b>, %t: !layout.tensor<i32, #layout.cute<(32,16):(16,1)>, gmem>) {
  // expected-error @+1 {{element types disagree: view of i32, value of f32}}
  layout.store %v, %t : tensor<32x16xf32, #b>, !layout.tensor<i32, #layout.cute<(32,16):(16,1)>, gmem>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @store_shape(%v: tensor<32x16xf32, #b>, %t: !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>) {
  // expected-error @+1 {{the view has shape [32, 32] but the value has shape [32, 16]}}
  layout.store %v, %t : tensor<32x16xf32, #b>, !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @store_threads(%v: tensor<32x16xf32, #b>, %t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>, %c: index) {
  layout.launch grid(%c, %c, %c) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA =}}
    layout.store %v, %t : tensor<32x16xf32, #b>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @convert_shape(%v: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{convert_layout keeps shape and element type: tensor<32x16xf32,}}
  %w = layout.convert_layout %v : tensor<32x16xf32, #b> -> tensor<16x32xf32, #c>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>
func.func @convert_threads(%v: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{both layouts must span the same number of threads: 128 and 64}}
  %w = layout.convert_layout %v : tensor<32x16xf32, #b> -> tensor<32x16xf32, #c>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @splat_elt(%x: f16) {
  // expected-error @+1 {{splat a scalar of the element type f32, got f16}}
  %v = layout.splat %x : f16 -> tensor<32x16xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @arange_size() {
  // expected-error @+1 {{arange of 16 values makes a 1-D tensor of 16 elements}}
  %r = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<32xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @arange_type() {
  // expected-error @+1 {{arange makes i32 values}}
  %r = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi64, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @expand_layout(%r: tensor<16xi32, #layout.slice<{dim = 1, parent = #b}>>) {
  // expected-error @+1 {{the source layout must be #layout.slice<{dim = 0, parent = <result layout>}>}}
  %e = layout.expand_dims %r {axis = 0 : i64} : tensor<16xi32, #layout.slice<{dim = 1, parent = #b}>> -> tensor<1x16xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @expand_shape(%r: tensor<16xi32, #layout.slice<{dim = 0, parent = #b}>>) {
  // expected-error @+1 {{expand_dims inserts one dimension of extent 1}}
  %e = layout.expand_dims %r {axis = 0 : i64} : tensor<16xi32, #layout.slice<{dim = 0, parent = #b}>> -> tensor<2x16xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @broadcast_shape(%e: tensor<2x16xi32, #b>) {
  // expected-error @+1 {{cannot broadcast shape [2, 16] to [32, 16]}}
  %v = layout.broadcast %e : tensor<2x16xi32, #b> -> tensor<32x16xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @broadcast_layout(%e: tensor<1x16xi32, #b>) {
  // expected-error @+1 {{broadcast keeps the layout and the element type}}
  %v = layout.broadcast %e : tensor<1x16xi32, #b> -> tensor<32x16xi32, #c>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @reduce_kind(%v: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{kind must be one of add, mul, max, min}}
  %r = layout.reduce %v {axis = 1 : i64, kind = "xor"} : tensor<32x16xf32, #b> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #b}>>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @reduce_layout(%v: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{the result layout must be #layout.slice<{dim = 1, parent = <source layout>}>}}
  %r = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<32x16xf32, #b> -> tensor<32xf32, #layout.slice<{dim = 0, parent = #b}>>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @reduce_axis(%v: tensor<32x16xf32, #b>) {
  // expected-error @+1 {{axis 2 out of range}}
  %r = layout.reduce %v {axis = 2 : i64, kind = "add"} : tensor<32x16xf32, #b> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #b}>>
  func.return
}

// -----

// Found by the token-mutation fuzzer: a negative `vector` crashed lower-to-gpu.
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!T = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @load_vector(%t: !T) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{vector = -1: an access moves a power of two of elements, at most 16 bytes (4 of f32)}}
    %v = layout.load %t {vector = -1 : i64} : !T -> tensor<64x64xf32, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!T = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @store_vector(%t: !T, %v: tensor<64x64xf32, #b>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{vector = 8: an access moves a power of two of elements, at most 16 bytes (4 of f32)}}
    layout.store %v, %t {vector = 8 : i64} : tensor<64x64xf32, #b>, !T
  }
  func.return
}
