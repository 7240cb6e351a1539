// Round trip of the layout dialect's types, in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

// CHECK-LABEL: func.func private @ptr(
// CHECK-SAME: !layout.ptr<f32>, !layout.ptr<f16>, !layout.ptr<bf16>, !layout.ptr<f64>, !layout.ptr<i8>, !layout.ptr<i16>, !layout.ptr<i32>, !layout.ptr<i64>)
func.func private @ptr(!layout.ptr<f32>, !layout.ptr<f16>, !layout.ptr<bf16>, !layout.ptr<f64>, !layout.ptr<i8>, !layout.ptr<i16>, !layout.ptr<i32>, !layout.ptr<i64>)

// An alignment equal to the element size is the default and is not printed.
// CHECK-LABEL: func.func private @ptr_align(
// CHECK-SAME: !layout.ptr<f32, align 16>, !layout.ptr<f16, align 4>, !layout.ptr<f64>)
func.func private @ptr_align(!layout.ptr<f32, align 16>, !layout.ptr<f16, align 4>, !layout.ptr<f64, align 8>)

// CHECK-LABEL: func.func private @tensor_gmem(
// CHECK-SAME: !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func private @tensor_gmem(!layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>)

// CHECK-LABEL: func.func private @tensor_dynamic(
// CHECK-SAME: !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
func.func private @tensor_dynamic(!layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>)

// CHECK-LABEL: func.func private @tensor_smem_swizzled(
// CHECK-SAME: !layout.tensor<f16, #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>, smem>
func.func private @tensor_smem_swizzled(!layout.tensor<f16, #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>, smem>)

// CHECK-LABEL: func.func private @tensor_rmem(
// CHECK-SAME: !layout.tensor<i32, #layout.cute<(4,4):(1,4)>, rmem>
func.func private @tensor_rmem(!layout.tensor<i32, #layout.cute<(4,4):(1,4)>, rmem>)

// CHECK-LABEL: func.func private @tensor_vec(
// CHECK-SAME: !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>
func.func private @tensor_vec(!layout.tensor<f32, #layout.cute<(16,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>)

// CHECK-LABEL: func.func private @tensor_masked(
// CHECK-SAME: !layout.tensor<f32, #layout.cute<(64,64):(4096,1)>, gmem, masked>
func.func private @tensor_masked(!layout.tensor<f32, #layout.cute<(64,64):(4096,1)>, gmem, masked>)

// `vec` and `masked` may come in either order; `vec` prints first.
// CHECK-LABEL: func.func private @tensor_vec_masked(
// CHECK-SAME: !layout.tensor<f32, #layout.cute<(64,16):(?,4)>, gmem, vec #layout.cute<(1,4):(?,1)>, masked>,
// CHECK-SAME: !layout.tensor<f32, #layout.cute<(64,16):(?,4)>, gmem, vec #layout.cute<(1,4):(?,1)>, masked>)
func.func private @tensor_vec_masked(!layout.tensor<f32, #layout.cute<(64,16):(?,4)>, gmem, vec #layout.cute<(1,4):(?,1)>, masked>, !layout.tensor<f32, #layout.cute<(64,16):(?,4)>, gmem, masked, vec #layout.cute<(1,4):(?,1)>>)

// Distributed values are builtin tensors encoded with a distributed layout.
// CHECK-LABEL: func.func private @distributed(
// CHECK-SAME: tensor<64x16xf32, #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>>
// CHECK-SAME: tensor<16xf32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>}>>
// CHECK-SAME: tensor<4x4xf32, #layout.linear<{register = [[0, 1]], lane = [[0, 2], [1, 0]], warp = [], block = []}>>)
func.func private @distributed(tensor<64x16xf32, #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>>, tensor<16xf32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>}>>, tensor<4x4xf32, #layout.linear<{register = [[0, 1]], lane = [[0, 2], [1, 0]], warp = [], block = []}>>)
