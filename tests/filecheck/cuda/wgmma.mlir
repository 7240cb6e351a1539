// The cuda target on warpgroup MMA (dialects/cuda_wgmma.py): descriptors formed by
// tilec_wgmma_desc from the operand's shared address and [swizzle, LBO, SBO] (mode 3
// for 32 bytes, 0 for none); the accumulators "+f" operands of wgmma.mma_async
// and, after the commit, of wgmma.wait_group, whose copies are what is stored.
// (The program: tests/helpers/wgmma_programs.py, wgmma_program(8).)
// RUN: tilec %s -t cuda | filecheck %s

// CHECK:      __device__ __forceinline__ unsigned long long tilec_wgmma_desc(const void* p, unsigned lbo, unsigned sbo,
// CHECK:        return ((addr >> 4) & 0x3FFFull) | ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
// CHECK-NEXT:          ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32) | ((unsigned long long)mode << 62);

// CHECK-LABEL: // kernel wgmma_kernels::wgmma_kernel: 32-bit indices, block (128, 1, 1)
// CHECK:        __shared__ alignas(1024) __nv_bfloat16 sa[1024];
// CHECK:        __syncthreads();
// CHECK:        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CHECK-NEXT:   float [[D0:d]] = acc0, [[D1:d_1]] = acc1, [[D2:d_2]] = acc2, [[D3:d_3]] = acc3;
// CHECK-NEXT:   asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n"
// CHECK-NEXT:       " wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}"
// CHECK-NEXT:       : "+f"([[D0]]), "+f"([[D1]]), "+f"([[D2]]), "+f"([[D3]])
// CHECK-NEXT:       : "l"(tilec_wgmma_desc(sa + 0, 0u, 256u, 3u)), "l"(tilec_wgmma_desc(sb + 0, 128u, 256u, 0u)), "r"(1)
// CHECK-NEXT:       : "memory");
// CHECK-NEXT:   asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CHECK-NEXT:   float [[E0:e]] = [[D0]], [[E1:e_1]] = [[D1]], [[E2:e_2]] = [[D2]], [[E3:e_3]] = [[D3]];
// CHECK-NEXT:   asm volatile("wgmma.wait_group.sync.aligned 0;"
// CHECK-NEXT:       : "+f"([[E0]]), "+f"([[E1]]), "+f"([[E2]]), "+f"([[E3]])
// CHECK-NEXT:       :: "memory");
// CHECK-NEXT:   gc[p0] = [[E0]];
// CHECK-NEXT:   gc[p1] = [[E1]];

builtin.module attributes {gpu.container_module} {
  func.func @wgmma(%ga: memref<1024xbf16>, %gb: memref<128xbf16>, %gc: memref<512xf32>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    "gpu.launch_func"(%c1, %c1, %c1, %c128, %c1, %c1, %ga, %gb, %gc) <{kernel = @wgmma_kernels::@wgmma_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1024xbf16>, memref<128xbf16>, memref<512xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "wgmma_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1024xbf16>, memref<128xbf16>, memref<512xf32>) -> (), kernel}> ({
    ^bb0(%ga: memref<1024xbf16>, %gb: memref<128xbf16>, %gc: memref<512xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %na = arith.constant 1024 : index
      %nb = arith.constant 128 : index
      %sa = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
      %sb = memref.alloca() {alignment = 1024 : i64} : memref<128xbf16, 3 : i64>
      scf.for %i = %c0 to %na step %c128 {
        %j = arith.addi %i, %tid : index
        %x = memref.load %ga[%j] : memref<1024xbf16>
        memref.store %x, %sa[%j] : memref<1024xbf16, 3 : i64>
      }
      scf.for %i = %c0 to %nb step %c128 {
        %j = arith.addi %i, %tid : index
        %x = memref.load %gb[%j] : memref<128xbf16>
        memref.store %x, %sb[%j] : memref<128xbf16, 3 : i64>
      }
      "gpu.barrier"() : () -> ()
      %o0 = arith.constant 0 : index
      %p0 = arith.addi %o0, %tid : index
      %acc0 = memref.load %gc[%p0] : memref<512xf32>
      %o1 = arith.constant 128 : index
      %p1 = arith.addi %o1, %tid : index
      %acc1 = memref.load %gc[%p1] : memref<512xf32>
      %o2 = arith.constant 256 : index
      %p2 = arith.addi %o2, %tid : index
      %acc2 = memref.load %gc[%p2] : memref<512xf32>
      %o3 = arith.constant 384 : index
      %p3 = arith.addi %o3, %tid : index
      %acc3 = memref.load %gc[%p3] : memref<512xf32>
      cuda.wgmma_fence
      %d:4 = cuda.wgmma %sa[%c0], %sb[%c0], %acc0, %acc1, %acc2, %acc3 {n = 8 : i64, a_desc = array<i64: 32, 0, 256>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<128xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
      cuda.wgmma_commit_group
      %e:4 = cuda.wgmma_wait_group 0, %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32 -> f32, f32, f32, f32
      memref.store %e#0, %gc[%p0] : memref<512xf32>
      memref.store %e#1, %gc[%p1] : memref<512xf32>
      memref.store %e#2, %gc[%p2] : memref<512xf32>
      memref.store %e#3, %gc[%p3] : memref<512xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "wgmma_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} : () -> ()
  }) : () -> ()
}
