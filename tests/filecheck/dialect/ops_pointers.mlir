// Round trip of the pointer-tensor ops (dialects/layout_ptr.py): splat of a pointer,
// layout.addptr on tensors and scalars, layout.multiple_of, layout.ptr_load / ptr_store with and without
// mask, `other` and the properties vectorize-pointers sets; custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// CHECK-LABEL: func.func @pointers(
// CHECK: %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: %a = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32, align 16>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: %q = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: %s = layout.addptr %src, %k : !layout.ptr<f32, align 16>, i64
// CHECK: %k16 = layout.multiple_of %k {divisor = 16 : i64} : i64
// CHECK: %v = layout.ptr_load %q : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: %w = layout.ptr_load %q, %z : f32 mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> {vector = 4 : i64, uniform_mask} : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: layout.ptr_store %v, %q : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: layout.ptr_store %w, %q mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> {vector = 4 : i64} : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @pointers(%src: !layout.ptr<f32, align 16>, %offs: tensor<512xi32, #b>, %m: tensor<512xi1, #b>, %k: i64) {
  %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #b>
  %a = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32, align 16>, #b>
  %q = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #b>, tensor<512xi32, #b>
  %s = layout.addptr %src, %k : !layout.ptr<f32, align 16>, i64
  %k16 = layout.multiple_of %k {divisor = 16 : i64} : i64
  %z = arith.constant 0.0 : f32
  %v = layout.ptr_load %q : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  %w = layout.ptr_load %q, %z : f32 mask %m : tensor<512xi1, #b> {vector = 4 : i64, uniform_mask} : tensor<512x!layout.ptr<f32>, #b> -> tensor<512xf32, #b>
  layout.ptr_store %v, %q : tensor<512xf32, #b>, tensor<512x!layout.ptr<f32>, #b>
  layout.ptr_store %w, %q mask %m : tensor<512xi1, #b> {vector = 4 : i64} : tensor<512xf32, #b>, tensor<512x!layout.ptr<f32>, #b>
  func.return
}
