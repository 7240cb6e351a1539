// The index-width promise `tilec.index_bits = 32` (support/index_width.py) on a copy
// with run-time extents and strides (tilec.copy_'s 1-byte transpose): the kernel
// computes its offsets in 32 bits and takes 32-bit index parameters; without the
// promise the same program is 64-bit (its buffers' sizes are dynamic). The passes
// keep the program's meaning (--check-equivalence), and the GPU-level kernel carries
// the promise.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default --check-equivalence --arg n0=19 --arg n1=300 --arg ss1=19 --arg ds0=300 | filecheck %s --check-prefix=EQ

// CHECK-LABEL: // kernel transpose32_kernels::transpose32_kernel: 32-bit indices, block (256, 1, 1)
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(256)
// CHECK-NEXT:  transpose32_kernel(const signed char* __restrict__ src, signed char* __restrict__ dst, int n0, int n1, int ss1, int ds0, int {{.*}}) {
// CHECK-NEXT:    const int bx = (int)blockIdx.x;
// CHECK-NOT:     long long
// CHECK:         dst[{{.*}}] =
// GPU:       func.func @transpose32({{.*}}) attributes {tilec.index_bits = 32 : i64} {
// GPU:       sym_name = "transpose32_kernel", gpu.known_block_size = array<i32: 256, 1, 1>, tilec.index_bits = 32 : i64}
// GPU:       sym_name = "transpose64_kernel", gpu.known_block_size = array<i32: 256, 1, 1>} :
// EQ:        // @transpose32: equivalent after 'default'
// EQ:        // @transpose64: equivalent after 'default'
func.func @transpose32(%src: !layout.ptr<i8, align 1>, %dst: !layout.ptr<i8, align 1>, %n0: index, %n1: index, %ss1: index, %ds0: index) attributes {tilec.index_bits = 32 : i64} {
  %a = layout.view %src(%n0, %n1, %ss1) : !layout.ptr<i8, align 1> -> !layout.tensor<i8, #layout.cute<(?,?):(1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %ds0) : !layout.ptr<i8, align 1> -> !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b {tile = array<i64: 8, 256>} : !layout.tensor<i8, #layout.cute<(?,?):(1,?)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// CHECK-LABEL: // kernel transpose64_kernels::transpose64_kernel: 64-bit indices, block (256, 1, 1)
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(256)
// CHECK-NEXT:  transpose64_kernel(const signed char* __restrict__ src, signed char* __restrict__ dst, long long n0, long long n1, long long ss1, long long ds0, long long {{.*}}) {
func.func @transpose64(%src: !layout.ptr<i8, align 1>, %dst: !layout.ptr<i8, align 1>, %n0: index, %n1: index, %ss1: index, %ds0: index) {
  %a = layout.view %src(%n0, %n1, %ss1) : !layout.ptr<i8, align 1> -> !layout.tensor<i8, #layout.cute<(?,?):(1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %ds0) : !layout.ptr<i8, align 1> -> !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b {tile = array<i64: 8, 256>} : !layout.tensor<i8, #layout.cute<(?,?):(1,?)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}
