// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @mma_64x32x32: equivalent after 'lower-to-gpu' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @mma_f16_one_warp: equivalent after 'lower-to-gpu' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @mma_tf32: equivalent after 'lower-to-gpu' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @mma_i8: equivalent after 'lower-to-gpu' (seed 0, buffers %pa, %pb, %pc){{$}}
// layout.mma of version-2 layouts -> cuda.mma_sync (mma.sync.m16n8k16 for bf16/f16,
// m16n8k8 for tf32, m16n8k32 for i8), the operands taken register for register from
// the dot-operand layouts (kWidth 2, 1 and 4).

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!GA = !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>

// 4 warps on a 64x32 accumulator: each warp owns 2x2 tiles of 16x8 and steps K = 32
// twice, the second step accumulating into the first one's results.
// CHECK-LABEL: "gpu.func"() <{function_type = (memref<2048xbf16>, memref<1024xbf16>, memref<2048xf32>) -> ()
// CHECK: %[[D0:[0-9]+]], %[[D1:[0-9]+]], %[[D2:[0-9]+]], %[[D3:[0-9]+]] = cuda.mma_sync {{.*}} : bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NEXT: cuda.mma_sync {{.*}}, %[[D0]], %[[D1]], %[[D2]], %[[D3]] : bf16,
// CHECK-COUNT-6: cuda.mma_sync
// CHECK-NOT: cuda.mma_sync
// CHECK: cuda.comment "layout.mma 64x32x32: 8 mma.sync.m16n8k16 per warp (4 tile(s) of 16x8, 2 step(s) of K = 16)"
func.func @mma_64x32x32(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !GA -> tensor<64x32xbf16, #a>
    %vb = layout.load %b : !GB -> tensor<32x32xbf16, #b>
    %acc = layout.load %c : !GC -> tensor<64x32xf32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<64x32xbf16, #a>, tensor<32x32xbf16, #b>, tensor<64x32xf32, #mma>
    layout.store %d, %c : tensor<64x32xf32, #mma>, !GC
  }
  func.return
}

#mma1 = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a1 = #layout.dot_op<opIdx = 0, parent = #mma1, kWidth = 2>
#b1 = #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 2>

// One warp, one instruction, f16 operands and a zero accumulator.
// CHECK-LABEL: "gpu.func"() <{function_type = (memref<256xf16>, memref<128xf16>, memref<128xf32>) -> ()
// CHECK: cuda.mma_sync {{.*}} : f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NOT: cuda.mma_sync
// CHECK: cuda.comment "layout.mma 16x8x16: 1 mma.sync.m16n8k16 per warp (1 tile(s) of 16x8, 1 step(s) of K = 16)"
func.func @mma_f16_one_warp(%pa: !layout.ptr<f16>, %pb: !layout.ptr<f16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf16, #a1>
    %vb = layout.load %b : !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xf16, #b1>
    %acc = layout.splat %zero : f32 -> tensor<16x8xf32, #mma1>
    %d = layout.mma %va, %vb, %acc : tensor<16x16xf16, #a1>, tensor<16x8xf16, #b1>, tensor<16x8xf32, #mma1>
    layout.store %d, %c : tensor<16x8xf32, #mma1>, !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}

// tf32: K steps of 8, operands of kWidth 1.
// CHECK-LABEL: "gpu.func"() <{function_type = (memref<256xf32>, memref<256xf32>, memref<256xf32>) -> ()
// CHECK: cuda.mma_sync {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK: cuda.comment "layout.mma 16x16x16: 4 mma.sync.m16n8k8 per warp (2 tile(s) of 16x8, 2 step(s) of K = 8)"
func.func @mma_tf32(%pa: !layout.ptr<f32>, %pb: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
  %bb = layout.view %pb : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf32, #layout.dot_op<opIdx = 0, parent = #mma1, kWidth = 1>>
    %vb = layout.load %bb : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf32, #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 1>>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf32, #mma1>
    %d = layout.mma %va, %vb, %acc : tensor<16x16xf32, #layout.dot_op<opIdx = 0, parent = #mma1, kWidth = 1>>, tensor<16x16xf32, #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 1>>, tensor<16x16xf32, #mma1>
    layout.store %d, %c : tensor<16x16xf32, #mma1>, !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
  }
  func.return
}

// i8 x i8 -> i32: K steps of 32, operands of kWidth 4, exact (compared bit for bit).
// CHECK-LABEL: "gpu.func"() <{function_type = (memref<512xi8>, memref<256xi8>, memref<128xi32>) -> ()
// CHECK: cuda.mma_sync {{.*}} : i8, {{.*}}, i8, i32, i32, i32, i32 -> i32, i32, i32, i32
// CHECK: cuda.comment "layout.mma 16x8x32: 1 mma.sync.m16n8k32 per warp (1 tile(s) of 16x8, 1 step(s) of K = 32)"
func.func @mma_i8(%pa: !layout.ptr<i8>, %pb: !layout.ptr<i8>, %pc: !layout.ptr<i32>) {
  %a = layout.view %pa : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(16,32):(32,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(32,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(16,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<i8, #layout.cute<(16,32):(32,1)>, gmem> -> tensor<16x32xi8, #layout.dot_op<opIdx = 0, parent = #mma1, kWidth = 4>>
    %vb = layout.load %b : !layout.tensor<i8, #layout.cute<(32,8):(8,1)>, gmem> -> tensor<32x8xi8, #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 4>>
    %acc = layout.load %c : !layout.tensor<i32, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xi32, #mma1>
    %d = layout.mma %va, %vb, %acc : tensor<16x32xi8, #layout.dot_op<opIdx = 0, parent = #mma1, kWidth = 4>>, tensor<32x8xi8, #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 4>>, tensor<16x8xi32, #mma1>
    layout.store %d, %c : tensor<16x8xi32, #mma1>, !layout.tensor<i32, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}
