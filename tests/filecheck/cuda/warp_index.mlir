// The cuda target's warp index (compiler/cuda/gpu_ops.py, emit_thread_id): in a kernel
// with wgmma whose block's x extent is a multiple of 32, `threadIdx.x >> k` (k >= 5,
// the warp and warpgroup bits) is read from `threadIdx.x >> 5` broadcast from lane 0
// (one value per warp: ptxas keeps what derives from it in uniform registers); `>> 2`
// (lane bits) still reads threadIdx.x. A block of 48 x 2 threads (warps across x rows)
// and a kernel without wgmma keep threadIdx.x. And wgmma descriptors at a constant offset from a base
// (compiler/cuda/wgmma_ops.py): the base's descriptor plus the offset's bytes
// (tilec_wgmma_desc_add), the base's own where the offset is 0.
// RUN: tilec %s -t cuda | filecheck %s

// CHECK:      __device__ __forceinline__ unsigned long long tilec_wgmma_desc_add(unsigned long long d, unsigned bytes) {
// CHECK:        unsigned step = bytes >> 4;
// CHECK-NEXT:   asm volatile("" : "+r"(step));
// CHECK-NEXT:   const unsigned lo = static_cast<unsigned>(d) + step;
// CHECK-NEXT:   return (d & 0xFFFFFFFF00000000ull) | lo;

// CHECK-LABEL: // kernel warps_kernels::warps_kernel: 32-bit indices, block (256, 1, 1)
// CHECK:        const int tid = (int)threadIdx.x;
// CHECK-NEXT:   const int [[W:warp]] = (int)__shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);  // the warp's index, uniform
// CHECK-NEXT:   const int wg = (int)((unsigned int)[[W]] >> 2);
// CHECK-NEXT:   const int quad = (int)((unsigned int)tid >> (unsigned int)2);
// CHECK-NEXT:   const int warp_1 = [[W]];
// CHECK:        "l"(tilec_wgmma_desc(sa + [[OFF:off]], 0u, 1024u, 1u)), "l"(tilec_wgmma_desc(sb + 0, 0u, 1024u, 1u)), "r"(1)
// CHECK:        "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(sa + [[OFF]], 0u, 1024u, 1u), 32u)), "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(sb + 0, 0u, 1024u, 1u), 8192u)), "r"(1)

// CHECK-LABEL: // kernel rows_kernels::rows_kernel: 32-bit indices, block (48, 2, 1)
// CHECK:        const int tid = (int)threadIdx.x;
// CHECK-NEXT:   const int warp = (int)((unsigned int)tid >> (unsigned int)5);

// CHECK-LABEL: // kernel plain_kernels::plain_kernel: 32-bit indices, block (256, 1, 1)
// CHECK:        const int tid = (int)threadIdx.x;
// CHECK-NEXT:   const int warp = (int)((unsigned int)tid >> (unsigned int)5);

builtin.module attributes {gpu.container_module} {
  func.func @warps(%ga: memref<8192xbf16>, %gb: memref<8192xbf16>, %gc: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %ga, %gb, %gc) <{kernel = @warps_kernels::@warps_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<8192xbf16>, memref<8192xbf16>, memref<1024xf32>) -> ()
    %c48 = arith.constant 48 : index
    %c2 = arith.constant 2 : index
    "gpu.launch_func"(%c1, %c1, %c1, %c48, %c2, %c1, %gc) <{kernel = @rows_kernels::@rows_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<1024xf32>) -> ()
    "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %gc) <{kernel = @plain_kernels::@plain_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<1024xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "warps_kernels"}> ({
    "gpu.func"() <{function_type = (memref<8192xbf16>, memref<8192xbf16>, memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%ga: memref<8192xbf16>, %gb: memref<8192xbf16>, %gc: memref<1024xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %c16 = arith.constant 16 : index
      %c4096 = arith.constant 4096 : index
      %wg = arith.shrui %tid, %c7 : index
      %quad = arith.shrui %tid, %c2 : index
      %warp = arith.shrui %tid, %c5 : index
      %off = arith.muli %wg, %c4096 : index
      %off16 = arith.addi %off, %c16 : index
      %sa = memref.alloca() {alignment = 1024 : i64} : memref<8192xbf16, 3 : i64>
      %sb = memref.alloca() {alignment = 1024 : i64} : memref<8192xbf16, 3 : i64>
      %p = arith.addi %quad, %warp : index
      %acc = memref.load %gc[%p] : memref<1024xf32>
      cuda.wgmma_fence
      %d:4 = cuda.wgmma %sa[%off], %sb[%c0], %acc, %acc, %acc, %acc {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>} : memref<8192xbf16, 3 : i64>, memref<8192xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
      %e:4 = cuda.wgmma %sa[%off16], %sb[%c4096], %d#0, %d#1, %d#2, %d#3 {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>} : memref<8192xbf16, 3 : i64>, memref<8192xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
      cuda.wgmma_commit_group
      %f:4 = cuda.wgmma_wait_group 0, %e#0, %e#1, %e#2, %e#3 : f32, f32, f32, f32 -> f32, f32, f32, f32
      memref.store %f#0, %gc[%p] : memref<1024xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "warps_kernel", gpu.known_block_size = array<i32: 256, 1, 1>} : () -> ()
  }) : () -> ()
  "gpu.module"() <{sym_name = "rows_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%gc: memref<1024xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c5 = arith.constant 5 : index
      %warp = arith.shrui %tid, %c5 : index
      %x = arith.constant 1.0 : f32
      memref.store %x, %gc[%warp] : memref<1024xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "rows_kernel", gpu.known_block_size = array<i32: 48, 2, 1>} : () -> ()
  }) : () -> ()
  "gpu.module"() <{sym_name = "plain_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%gc: memref<1024xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c5 = arith.constant 5 : index
      %warp = arith.shrui %tid, %c5 : index
      %x = arith.constant 1.0 : f32
      memref.store %x, %gc[%warp] : memref<1024xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "plain_kernel", gpu.known_block_size = array<i32: 256, 1, 1>} : () -> ()
  }) : () -> ()
}
