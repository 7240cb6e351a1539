// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @colsum: equivalent after
// A column sum over rows that span 2 lanes and 4 warps: registers inside the thread,
// shuffles across the lanes, then one round through shared memory across the warps
// (lane 0 of the 4 lanes along the axis writes its 4 partials, one barrier, each thread
// folds the 4 warps' partials).
#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sl = #layout.slice<{dim = 0, parent = #bl}>
!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<32:1>, gmem>

// CHECK-LABEL: "gpu.module"() <{sym_name = "colsum_kernels"}>
// CHECK:         %[[RED:.*]] = memref.alloca() : memref<128xf32, 3 : i64>
// CHECK:         vector.load %src
// CHECK-COUNT-8: cuda.shfl_idx
// CHECK:         cuda.comment "reduce across 4 warps via smem: one round of 4 partials per thread, 0 bank conflicts per write, 0 per read"
// CHECK:         scf.if
// CHECK-COUNT-4: memref.store %{{.*}}, %[[RED]]
// CHECK:         "gpu.barrier"
// CHECK-NOT:     "gpu.barrier"
// CHECK-COUNT-16: memref.load %[[RED]]
// CHECK:         vector.store %{{.*}}, %dst
// CUDA-LABEL: colsum_kernel(
// CUDA:         __shared__ alignas(16) float red[128];
// CUDA:         // reduce across 4 warps via smem: one round of 4 partials per thread, 0 bank conflicts per write, 0 per read
// CUDA-COUNT-1: __syncthreads();
// CUDA-NOT:     __syncthreads();
func.func @colsum(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a {vector = 4 : i64} : !G -> tensor<16x32xf32, #bl>
    %s = layout.reduce %v {axis = 0 : i64, kind = "add"} : tensor<16x32xf32, #bl> -> tensor<32xf32, #sl>
    layout.store %s, %b {vector = 4 : i64} : tensor<32xf32, #sl>, !R
  }
  func.return
}
