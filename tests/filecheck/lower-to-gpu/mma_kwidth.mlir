// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// Dot operands whose kWidth is a multiple of the instruction's (issue 22: Triton's
// kWidth 4 and 8 for 16-bit operands, 8 for i8, 2 for tf32): a lane holds other K
// than the PTX fragment's, and the same K in A and B; lower-to-gpu renames the
// fragment's K slots alike on both sides. The equivalence runs check the pairing: a
// wrong one multiplies A and B elements of different K.
// EQ: @bf16_kwidth4: equivalent after 'lower-to-gpu' {{.*}} within the layout.mma tolerance
// EQ: @bf16_kwidth8: equivalent after 'lower-to-gpu' {{.*}} within the layout.mma tolerance
// EQ: @i8_kwidth8: equivalent after 'lower-to-gpu' (seed 0, buffers %pa, %pb, %pc){{$}}
// EQ: @tf32_kwidth2: equivalent after 'lower-to-gpu' {{.*}} within the layout.mma tolerance

// CHECK-LABEL: "gpu.func"() <{function_type = (memref<2048xbf16>, memref<1024xbf16>, memref<2048xf32>) -> ()
// CHECK: cuda.comment "layout.mma 64x32x32:
#mma_bf16_kwidth4 = #layout.nvidia_mma<version = 2, warpsPerCTA = [2,2], instrShape = [16, 8]>
#a_bf16_kwidth4 = #layout.dot_op<opIdx = 0, parent = #mma_bf16_kwidth4, kWidth = 4>
#b_bf16_kwidth4 = #layout.dot_op<opIdx = 1, parent = #mma_bf16_kwidth4, kWidth = 4>
func.func @bf16_kwidth4(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, gmem> -> tensor<64x32xbf16, #a_bf16_kwidth4>
    %vb = layout.load %b : !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem> -> tensor<32x32xbf16, #b_bf16_kwidth4>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem> -> tensor<64x32xf32, #mma_bf16_kwidth4>
    %d = layout.mma %va, %vb, %acc : tensor<64x32xbf16, #a_bf16_kwidth4>, tensor<32x32xbf16, #b_bf16_kwidth4>, tensor<64x32xf32, #mma_bf16_kwidth4>
    layout.store %d, %c : tensor<64x32xf32, #mma_bf16_kwidth4>, !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"() <{function_type = (memref<2048xbf16>, memref<1024xbf16>, memref<2048xf32>) -> ()
// CHECK: cuda.comment "layout.mma 64x32x32:
#mma_bf16_kwidth8 = #layout.nvidia_mma<version = 2, warpsPerCTA = [2,2], instrShape = [16, 8]>
#a_bf16_kwidth8 = #layout.dot_op<opIdx = 0, parent = #mma_bf16_kwidth8, kWidth = 8>
#b_bf16_kwidth8 = #layout.dot_op<opIdx = 1, parent = #mma_bf16_kwidth8, kWidth = 8>
func.func @bf16_kwidth8(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, gmem> -> tensor<64x32xbf16, #a_bf16_kwidth8>
    %vb = layout.load %b : !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem> -> tensor<32x32xbf16, #b_bf16_kwidth8>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem> -> tensor<64x32xf32, #mma_bf16_kwidth8>
    %d = layout.mma %va, %vb, %acc : tensor<64x32xbf16, #a_bf16_kwidth8>, tensor<32x32xbf16, #b_bf16_kwidth8>, tensor<64x32xf32, #mma_bf16_kwidth8>
    layout.store %d, %c : tensor<64x32xf32, #mma_bf16_kwidth8>, !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"() <{function_type = (memref<2048xi8>, memref<512xi8>, memref<256xi32>) -> ()
// CHECK: cuda.comment "layout.mma 32x8x64:
#mma_i8_kwidth8 = #layout.nvidia_mma<version = 2, warpsPerCTA = [1,1], instrShape = [16, 8]>
#a_i8_kwidth8 = #layout.dot_op<opIdx = 0, parent = #mma_i8_kwidth8, kWidth = 8>
#b_i8_kwidth8 = #layout.dot_op<opIdx = 1, parent = #mma_i8_kwidth8, kWidth = 8>
func.func @i8_kwidth8(%pa: !layout.ptr<i8>, %pb: !layout.ptr<i8>, %pc: !layout.ptr<i32>) {
  %a = layout.view %pa : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(32,64):(64,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(64,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(32,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<i8, #layout.cute<(32,64):(64,1)>, gmem> -> tensor<32x64xi8, #a_i8_kwidth8>
    %vb = layout.load %b : !layout.tensor<i8, #layout.cute<(64,8):(8,1)>, gmem> -> tensor<64x8xi8, #b_i8_kwidth8>
    %acc = layout.load %c : !layout.tensor<i32, #layout.cute<(32,8):(8,1)>, gmem> -> tensor<32x8xi32, #mma_i8_kwidth8>
    %d = layout.mma %va, %vb, %acc : tensor<32x64xi8, #a_i8_kwidth8>, tensor<64x8xi8, #b_i8_kwidth8>, tensor<32x8xi32, #mma_i8_kwidth8>
    layout.store %d, %c : tensor<32x8xi32, #mma_i8_kwidth8>, !layout.tensor<i32, #layout.cute<(32,8):(8,1)>, gmem>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"() <{function_type = (memref<512xf32>, memref<256xf32>, memref<512xf32>) -> ()
// CHECK: cuda.comment "layout.mma 32x16x16:
#mma_tf32_kwidth2 = #layout.nvidia_mma<version = 2, warpsPerCTA = [2,1], instrShape = [16, 8]>
#a_tf32_kwidth2 = #layout.dot_op<opIdx = 0, parent = #mma_tf32_kwidth2, kWidth = 2>
#b_tf32_kwidth2 = #layout.dot_op<opIdx = 1, parent = #mma_tf32_kwidth2, kWidth = 2>
func.func @tf32_kwidth2(%pa: !layout.ptr<f32>, %pb: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #a_tf32_kwidth2>
    %vb = layout.load %b : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf32, #b_tf32_kwidth2>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #mma_tf32_kwidth2>
    %d = layout.mma %va, %vb, %acc : tensor<32x16xf32, #a_tf32_kwidth2>, tensor<16x16xf32, #b_tf32_kwidth2>, tensor<32x16xf32, #mma_tf32_kwidth2>
    layout.store %d, %c : tensor<32x16xf32, #mma_tf32_kwidth2>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  }
  func.return
}
