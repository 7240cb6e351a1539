// The cuda target's inline PTX for the tf32 and s8 mma.sync: tf32 operands pass their
// f32 bits, one per register; s8 operands four to a register, the first in the low
// byte; s32 accumulators as "r" operands and results.
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// CHECK: __device__ __forceinline__ unsigned tilec_pack_s8x4(int a, int b, int c, int d) {
// CHECK-NEXT:   return (unsigned)(a & 0xff) | ((unsigned)(b & 0xff) << 8) | ((unsigned)(c & 0xff) << 16) |
// CHECK-LABEL: tf32_kernel(
// CHECK: float [[D0:d[_0-9]*]], {{.*}};
// CHECK-NEXT: asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
// CHECK-NEXT:     : "=f"([[D0]]), "=f"({{.*}}), "=f"({{.*}}), "=f"({{.*}})
// CHECK-NEXT:     : "r"(__float_as_uint({{[a-z_0-9]+}})), "r"(__float_as_uint({{.*}})), "r"(__float_as_uint({{.*}})), "r"(__float_as_uint({{.*}})), "r"(__float_as_uint({{.*}})), "r"(__float_as_uint({{.*}})), "f"({{.*}}), "f"({{.*}}), "f"({{.*}}), "f"({{.*}}));
// CHECK-LABEL: s8_kernel(
// CHECK: int [[E0:d[_0-9]*]], {{.*}};
// CHECK-NEXT: asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
// CHECK-NEXT:     : "=r"([[E0]]), "=r"({{.*}}), "=r"({{.*}}), "=r"({{.*}})
// CHECK-NEXT:     : "r"(tilec_pack_s8x4({{[a-z_0-9]+}}, {{[a-z_0-9]+}}, {{[a-z_0-9]+}}, {{[a-z_0-9]+}})), "r"(tilec_pack_s8x4({{.*}})), "r"(tilec_pack_s8x4({{.*}})), "r"(tilec_pack_s8x4({{.*}})), "r"(tilec_pack_s8x4({{.*}})), "r"(tilec_pack_s8x4({{.*}})), "r"({{.*}}), "r"({{.*}}), "r"({{.*}}), "r"({{.*}}));
// CHECK: pc[{{.*}}] = [[E0]];

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
func.func @tf32(%pa: !layout.ptr<f32>, %pb: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xf32, #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 1>>
    %vb = layout.load %b : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem> -> tensor<8x8xf32, #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 1>>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xf32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<16x8xf32, #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 1>>, tensor<8x8xf32, #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 1>>, tensor<16x8xf32, #mma>
    layout.store %d, %c : tensor<16x8xf32, #mma>, !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}

func.func @s8(%pa: !layout.ptr<i8>, %pb: !layout.ptr<i8>, %pc: !layout.ptr<i32>) {
  %a = layout.view %pa : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(16,32):(32,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(32,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(16,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<i8, #layout.cute<(16,32):(32,1)>, gmem> -> tensor<16x32xi8, #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 4>>
    %vb = layout.load %b : !layout.tensor<i8, #layout.cute<(32,8):(8,1)>, gmem> -> tensor<32x8xi8, #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 4>>
    %acc = layout.load %c : !layout.tensor<i32, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xi32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<16x32xi8, #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 4>>, tensor<32x8xi8, #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 4>>, tensor<16x8xi32, #mma>
    layout.store %d, %c : tensor<16x8xi32, #mma>, !layout.tensor<i32, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}
