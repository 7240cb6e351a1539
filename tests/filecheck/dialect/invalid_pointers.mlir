// Verifier errors of the pointer-tensor ops (dialects/layout_ptr.py).
// RUN: tilec %s --split-input-file --verify-diagnostics

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @splat_other_pointee(%src: !layout.ptr<f32, align 16>) {
  // expected-error @+1 {{splat a scalar of the element type !layout.ptr<f16>, got !layout.ptr<f32, align 16>}}
  %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f16>, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#c = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_layouts(%p: tensor<512x!layout.ptr<f32>, #b>, %offs: tensor<512xi32, #c>) {
  // expected-error @+1 {{the offsets must have the pointers' shape and layout}}
  %q = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #b>, tensor<512xi32, #c>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_float_offsets(%p: tensor<512x!layout.ptr<f32>, #b>, %offs: tensor<512xf32, #b>) {
  // expected-error @+1 {{the offsets must be integers (i8..i64 or index), got f32}}
  %q = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #b>, tensor<512xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @addptr_scalar_tensor(%src: !layout.ptr<f32>, %offs: tensor<512xi32, #b>) {
  // expected-error @+1 {{a scalar pointer takes a scalar offset (splat the pointer to add a tensor)}}
  %q = layout.addptr %src, %offs : !layout.ptr<f32>, tensor<512xi32, #b>
  func.return
}

// -----

func.func @addptr_not_pointer(%x: f32, %i: i32) {
  // expected-error @+1 {{layout.addptr takes a pointer or a tensor of pointers, got f32}}
  %q = layout.addptr %x, %i : f32, i32
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_not_pointers(%x: tensor<512xf32, #b>) {
  // expected-error @+1 {{the pointers must be a distributed tensor of !layout.ptr, got tensor<512xf32}}
  %v = layout.ptr_load %x : tensor<512xf32, #b> -> tensor<512xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_result_type(%q: tensor<512x!layout.ptr<f32>, #b>) {
  // expected-error @+1 {{the result must be a tensor of f32 of the pointers' shape and layout, got tensor<512xf16}}
  %v = layout.ptr_load %q : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf16, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_other_type(%q: tensor<512x!layout.ptr<f32>, #b>, %o: f16) {
  // expected-error @+1 {{`other` must be a scalar of the element type f32, got f16}}
  %v = layout.ptr_load %q, %o : f16 : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_mask_type(%q: tensor<512x!layout.ptr<f32>, #b>, %m: tensor<512xi32, #b>) {
  // expected-error @+1 {{the mask must be a tensor of i1 of the pointers' shape and layout, got tensor<512xi32}}
  %v = layout.ptr_load %q mask %m : tensor<512xi32, #b> : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @load_vector(%q: tensor<512x!layout.ptr<f32>, #b>) {
  // expected-error @+1 {{vector must be a power of two, got 3}}
  %v = layout.ptr_load %q {vector = 3 : i64} : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @store_value_type(%q: tensor<512x!layout.ptr<f32>, #b>, %v: tensor<512xi32, #b>) {
  // expected-error @+1 {{the value must be a tensor of f32 of the pointers' shape and layout, got tensor<512xi32}}
  layout.ptr_store %v, %q : tensor<512xi32, #b>, tensor<512x!layout.ptr<f32>, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @block_threads(%src: !layout.ptr<f32>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %p = layout.splat %src : !layout.ptr<f32> -> tensor<512x!layout.ptr<f32>, #b>
    // expected-error @+1 {{spans 128 threads but the block has 64}}
    %v = layout.ptr_load %p : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @two_arguments(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %m: tensor<512xi1, #b>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %p = layout.splat %src : !layout.ptr<f32> -> tensor<512x!layout.ptr<f32>, #b>
    %q = layout.splat %dst : !layout.ptr<f32> -> tensor<512x!layout.ptr<f32>, #b>
    %r = layout.select %m, %p, %q : tensor<512xi1, #b>, tensor<512x!layout.ptr<f32>, #b>
    // expected-error @+1 {{the pointers may point into several arguments (%dst, %src): each pointer tensor must point into one}}
    %v = layout.ptr_load %r : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @made_outside(%src: !layout.ptr<f32>) {
  %c1 = arith.constant 1 : index
  %p = layout.splat %src : !layout.ptr<f32> -> tensor<512x!layout.ptr<f32>, #b>
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{'layout.splat' makes pointers outside the layout.launch that uses them}}
    %v = layout.ptr_load %p : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  }
  func.return
}

// -----

func.func @multiple_of_divisor(%n: i32) {
  // expected-error @+1 {{the divisor must be a power of two, got 12}}
  %m = layout.multiple_of %n {divisor = 12 : i64} : i32
  func.return
}

// -----

func.func @multiple_of_float(%x: f32) {
  // expected-error @+1 {{layout.multiple_of's operand must be integers (i8..i64 or index), got f32}}
  %m = layout.multiple_of %x {divisor = 16 : i64} : f32
  func.return
}
