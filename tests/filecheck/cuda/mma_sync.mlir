// The cuda target prints cuda.mma_sync as inline PTX: each pair of 16-bit fragments
// packed into a 32-bit register, low element first; f32 accumulators as "f" operands.
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// CHECK: #include <cuda_bf16.h>
// CHECK: __device__ __forceinline__ unsigned tilec_pack_bf16x2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
// CHECK-NEXT:   return (unsigned)__bfloat16_as_ushort(lo) | ((unsigned)__bfloat16_as_ushort(hi) << 16);
// CHECK: extern "C" __global__ void __launch_bounds__(32)
// CHECK: float [[D0:d[_0-9]*]], [[D1:d_[0-9]+]], [[D2:d_[0-9]+]], [[D3:d_[0-9]+]];
// CHECK-NEXT: asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
// CHECK-NEXT:     : "=f"([[D0]]), "=f"([[D1]]), "=f"([[D2]]), "=f"([[D3]])
// CHECK-NEXT:     : "r"(tilec_pack_bf16x2({{[a-z_0-9]+}}, {{[a-z_0-9]+}})), "r"(tilec_pack_bf16x2({{.*}})), "r"(tilec_pack_bf16x2({{.*}})), "r"(tilec_pack_bf16x2({{.*}})), "r"(tilec_pack_bf16x2({{.*}})), "r"(tilec_pack_bf16x2({{.*}})), "f"({{[a-z_0-9]+}}), "f"({{[a-z_0-9]+}}), "f"({{[a-z_0-9]+}}), "f"({{[a-z_0-9]+}}));
// CHECK: pc[{{.*}}] = [[D0]];

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @mma(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(16,16):(16,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(16,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !layout.tensor<bf16, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xbf16, #a>
    %vb = layout.load %b : !layout.tensor<bf16, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xbf16, #b>
    %acc = layout.load %c : !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xf32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<16x16xbf16, #a>, tensor<16x8xbf16, #b>, tensor<16x8xf32, #mma>
    layout.store %d, %c : tensor<16x8xf32, #mma>, !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}
