// The cuda target on shared memory (memory space 3), cp.async, a barrier and a warp
// shuffle: static buffer sizes give 32-bit indices; f16 brings in cuda_fp16.h.
// RUN: tilec %s -t cuda | filecheck %s

// CHECK:      #include <cuda_fp16.h>
// CHECK:      template <int Bytes>
// CHECK-NEXT: __device__ __forceinline__ void tilec_cp_async(void* smem, const void* gmem) {
// CHECK:      cp.async.cg.shared.global [%0], [%1], 16;
// CHECK:      __device__ __forceinline__ unsigned tilec_lane_id() {

// CHECK-LABEL: // kernel stage_kernels::stage_kernel: 32-bit indices, block (64, 1, 1)
// CHECK-NEXT: extern "C" __global__ void __launch_bounds__(64)
// CHECK-NEXT: stage_kernel(const __half* __restrict__ src, __half* __restrict__ dst) {
// CHECK:        __shared__ alignas(16) __half stage[512];
// CHECK:        // stage.py:4:3
// CHECK-NEXT:   tilec_cp_async<16>(stage + local, src + local);
// CHECK-NEXT:   tilec_cp_async_commit();
// CHECK-NEXT:   tilec_cp_async_wait<0>();
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   const int lane = (int)tilec_lane_id();
// CHECK-NEXT:   const __half x = stage[tid];
// CHECK-NEXT:   const int from = 31 - lane;
// CHECK-NEXT:   const int from32 = static_cast<int>(from);
// CHECK-NEXT:   const __half y = __shfl_sync(0xffffffffu, x, from32, 32);
// CHECK-NEXT:   dst[tid] = y;
// CHECK-NEXT: }

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "stage_kernels"}> ({
    "gpu.func"() <{function_type = (memref<512xf16>, memref<512xf16>) -> (), kernel}> ({
    ^bb0(%src: memref<512xf16>, %dst: memref<512xf16>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c8 = arith.constant 8 : index
      %stage = memref.alloca() : memref<512xf16, 3>
      %local = arith.muli %tid, %c8 : index
      cuda.cp_async %stage[%local], %src[%local], 16 {tilec.loc = "stage.py:4:3"} : memref<512xf16, 3>, memref<512xf16>
      cuda.cp_async_commit
      cuda.cp_async_wait 0
      "gpu.barrier"() : () -> ()
      %lane = "gpu.lane_id"() : () -> index
      %x = memref.load %stage[%tid] : memref<512xf16, 3>
      %c31 = arith.constant 31 : index
      %from = arith.subi %c31, %lane : index
      %from32 = arith.index_cast %from : index to i32
      %y = cuda.shfl_idx %x, %from32, 32 : f16
      memref.store %y, %dst[%tid] : memref<512xf16>
      "gpu.return"() : () -> ()
    }) {sym_name = "stage_kernel", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}
