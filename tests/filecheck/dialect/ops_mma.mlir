// Round trip of layout.mma, in custom and generic form, for each element type it
// takes (bf16, f16, tf32 as f32, i8), and its CPU semantics against the equivalence
// checker: float results compare within the layout.mma tolerance.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @mma_bf16: equivalent after 'remove-layout-conversions' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance {{[0-9.e-]+}}
// EQ: @mma_f16_tf32: equivalent after 'remove-layout-conversions' (seed 0, buffers %px, %pu, %pc); float buffers within the layout.mma tolerance {{[0-9.e-]+}}
// EQ: @mma_i8: equivalent after 'remove-layout-conversions' (seed 0, buffers %pa, %pb, %pc){{$}}

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a2 = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b2 = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#a4 = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 4>
#b4 = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 4>
#a1 = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 1>
#b1 = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 1>

// CHECK-LABEL: func.func @mma_bf16(
// CHECK: %d = layout.mma %va, %vb, %acc : tensor<32x16xbf16, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>>, tensor<16x16xbf16, #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>>, tensor<32x16xf32, #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>>
func.func @mma_bf16(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(32,16):(16,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(16,16):(16,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<bf16, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xbf16, #a2>
    %vb = layout.load %b : !layout.tensor<bf16, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xbf16, #b2>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<32x16xbf16, #a2>, tensor<16x16xbf16, #b2>, tensor<32x16xf32, #mma>
    layout.store %d, %c : tensor<32x16xf32, #mma>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  }
  func.return
}

// CHECK-LABEL: func.func @mma_f16_tf32(
// CHECK: layout.mma %{{.*}} : tensor<32x16xf16, {{.*}}kWidth = 2>>, tensor<16x16xf16, {{.*}}>, tensor<32x16xf32, #layout.nvidia_mma<{{.*}}>>
// CHECK: layout.mma %{{.*}} : tensor<32x8xf32, {{.*}}kWidth = 1>>, tensor<8x16xf32, {{.*}}kWidth = 1>>, tensor<32x16xf32, #layout.nvidia_mma<{{.*}}>>
func.func @mma_f16_tf32(%px: !layout.ptr<f16>, %pu: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %x = layout.view %px : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(32,16):(16,1)>, gmem>
  %y = layout.view %px : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
  %u = layout.view %pu : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
  %v = layout.view %pu : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,16):(16,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %vx = layout.load %x : !layout.tensor<f16, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf16, #a2>
    %vy = layout.load %y : !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf16, #b2>
    %vu = layout.load %u : !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem> -> tensor<32x8xf32, #a1>
    %vv = layout.load %v : !layout.tensor<f32, #layout.cute<(8,16):(16,1)>, gmem> -> tensor<8x16xf32, #b1>
    %acc = layout.splat %zero : f32 -> tensor<32x16xf32, #mma>
    %d = layout.mma %vx, %vy, %acc : tensor<32x16xf16, #a2>, tensor<16x16xf16, #b2>, tensor<32x16xf32, #mma>
    %e = layout.mma %vu, %vv, %d : tensor<32x8xf32, #a1>, tensor<8x16xf32, #b1>, tensor<32x16xf32, #mma>
    layout.store %e, %c : tensor<32x16xf32, #mma>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  }
  func.return
}

// CHECK-LABEL: func.func @mma_i8(
// CHECK: %d = layout.mma %va, %vb, %acc : tensor<32x32xi8, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 4>>, tensor<32x16xi8, #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 4>>, tensor<32x16xi32, #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>>
func.func @mma_i8(%pa: !layout.ptr<i8>, %pb: !layout.ptr<i8>, %pc: !layout.ptr<i32>) {
  %a = layout.view %pa : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(32,32):(32,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(32,16):(16,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(32,16):(16,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<i8, #layout.cute<(32,32):(32,1)>, gmem> -> tensor<32x32xi8, #a4>
    %vb = layout.load %b : !layout.tensor<i8, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xi8, #b4>
    %acc = layout.load %c : !layout.tensor<i32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xi32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<32x32xi8, #a4>, tensor<32x16xi8, #b4>, tensor<32x16xi32, #mma>
    layout.store %d, %c : tensor<32x16xi32, #mma>, !layout.tensor<i32, #layout.cute<(32,16):(16,1)>, gmem>
  }
  func.return
}
