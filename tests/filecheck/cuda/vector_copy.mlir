// The cuda target on a masked vector copy: 16-byte vector accesses through an aligned
// struct, const __restrict__ on the buffer only read, 64-bit indices (the buffers'
// sizes are dynamic), #pragma unroll on the static tail loop, location comments.
// RUN: tilec %s -t cuda | filecheck %s

// CHECK:      struct alignas(16) f32x4 { float v[4]; };
// CHECK-LABEL: // kernel copy_kernels::copy_kernel: 64-bit indices, block (256, 1, 1)
// CHECK-NEXT: extern "C" __global__ void __launch_bounds__(256)
// CHECK-NEXT: copy_kernel(const float* __restrict__ src, float* __restrict__ dst, long long n) {
// CHECK-NEXT:   const long long bid = (long long)blockIdx.x;
// CHECK-NEXT:   const long long tid = (long long)threadIdx.x;
// CHECK-NEXT:   const long long base = bid * 1024;
// CHECK-NEXT:   const long long offset = tid * 4;
// CHECK-NEXT:   const long long i = base + offset;
// CHECK-NEXT:   const long long end = i + 4;
// CHECK-NEXT:   const bool full = end <= n;
// CHECK-NEXT:   if (full) {
// CHECK-NEXT:     // copy.py:7:3
// CHECK-NEXT:     const f32x4 v = *reinterpret_cast<const f32x4*>(src + i);
// CHECK-NEXT:     *reinterpret_cast<f32x4*>(dst + i) = v;
// CHECK-NEXT:   } else {
// CHECK-NEXT:     #pragma unroll
// CHECK-NEXT:     for (long long k = 0; k < 4; ++k) {
// CHECK-NEXT:       const long long j = i + k;
// CHECK-NEXT:       const bool in = j < n;
// CHECK-NEXT:       if (in) {
// CHECK-NEXT:         // copy.py:8:3
// CHECK-NEXT:         const float x = src[j];
// CHECK-NEXT:         dst[j] = x;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// The host function is not printed: the runtime runs it.
// CHECK-NOT: ceildivui

builtin.module attributes {gpu.container_module} {
  func.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %cb = arith.constant 256 : index
    %per_block = arith.constant 1024 : index
    %gx = arith.ceildivui %n, %per_block : index
    "gpu.launch_func"(%gx, %c1, %c1, %cb, %c1, %c1, %src, %dst, %n) <{kernel = @copy_kernels::@copy_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?xf32>, memref<?xf32>, index) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "copy_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, index) -> (), kernel}> ({
    ^bb0(%src: memref<?xf32>, %dst: memref<?xf32>, %n: index):
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %vec = arith.constant 4 : index
      %per_block = arith.constant 1024 : index
      %base = arith.muli %bid, %per_block : index
      %offset = arith.muli %tid, %vec : index
      %i = arith.addi %base, %offset : index
      %end = arith.addi %i, %vec : index
      %full = arith.cmpi sle, %end, %n : index
      scf.if %full {
        %v = vector.load %src[%i] {tilec.loc = "copy.py:7:3"} : memref<?xf32>, vector<4xf32>
        vector.store %v, %dst[%i] {tilec.loc = "copy.py:7:3"} : memref<?xf32>, vector<4xf32>
      } else {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        scf.for %k = %c0 to %vec step %c1 {
          %j = arith.addi %i, %k : index
          %in = arith.cmpi slt, %j, %n : index
          scf.if %in {
            %x = memref.load %src[%j] {tilec.loc = "copy.py:8:3"} : memref<?xf32>
            memref.store %x, %dst[%j] {tilec.loc = "copy.py:8:3"} : memref<?xf32>
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "copy_kernel", gpu.known_block_size = array<i32: 256, 1, 1>} : () -> ()
  }) : () -> ()
}
