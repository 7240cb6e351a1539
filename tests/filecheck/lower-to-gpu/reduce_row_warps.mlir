// RUN: tilec %s --split-input-file -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s --split-input-file -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @row_max_16_warps: equivalent after
// EQ: @row_sum_2_warps: equivalent after
// EQ: @row_argmax_region: equivalent after
// A row of 8192 over 16 warps (a softmax's row reduction): every lane bit moves along
// the row, so after the lanes' butterfly all 32 lanes of a warp hold the warp's partial;
// one lane per warp writes it, one barrier, then each lane reads ONE warp's partial
// (lane l of warp w reads warp (l mod 16) ^ w) and four shuffles combine the 16 (not 16
// loads per thread). The reference executor combines the warps in the same butterfly
// order, so --check-equivalence holds bit for bit.

// CHECK-LABEL: row_max_16_warps_kernel(
// CHECK:         __shared__ alignas(16) float red[16];
// CHECK-COUNT-5: __shfl_sync(0xffffffffu
// CHECK:         // reduce across 16 warps via smem: one round of 1 partial per thread
// CHECK:         __syncthreads();
// CHECK:         red[
// CHECK-NOT:     red[
// CHECK-COUNT-4: __shfl_sync(0xffffffffu
// CHECK-NOT:     __shfl_sync
// CHECK-NOT:     __syncthreads();
#a = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]}>
#sa = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(1,8192):(8192,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<1:1>, gmem>
func.func @row_max_16_warps(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(512) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<1x8192xf32, #a>
    %s = layout.reduce %v {axis = 1 : i64, kind = "max"} : tensor<1x8192xf32, #a> -> tensor<1xf32, #sa>
    layout.store %s, %b : tensor<1xf32, #sa>, !R
  }
  func.return
}

// -----

// Two warps along the row: one read and one shuffle after the barrier.
// CHECK-LABEL: row_sum_2_warps_kernel(
// CHECK:         __syncthreads();
// CHECK-COUNT-1: __shfl_sync(0xffffffffu
// CHECK-NOT:     __shfl_sync
#a2 = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
#sa2 = #layout.slice<{dim = 1, parent = #a2}>
!G2 = !layout.tensor<f32, #layout.cute<(1,256):(256,1)>, gmem>
!R2 = !layout.tensor<f32, #layout.cute<1:1>, gmem>
func.func @row_sum_2_warps(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G2
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<1x256xf32, #a2>
    %s = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<1x256xf32, #a2> -> tensor<1xf32, #sa2>
    layout.store %s, %b : tensor<1xf32, #sa2>, !R2
  }
  func.return
}

// -----

// A combiner region need not be commutative (this select keeps its first operand on ties
// of -0 and +0): its warps' partials are folded in warp order by every thread, as before
// (4 loads after the barrier).
// CHECK-LABEL: row_argmax_region_kernel(
// CHECK:         __syncthreads();
// CHECK-NOT:     __shfl_sync
#a3 = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#sa3 = #layout.slice<{dim = 1, parent = #a3}>
!G3 = !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem>
!R3 = !layout.tensor<f32, #layout.cute<1:1>, gmem>
func.func @row_argmax_region(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G3
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R3
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G3 -> tensor<1x128xf32, #a3>
    %s = layout.reduce_region %v {axis = 1 : i64} : tensor<1x128xf32, #a3> -> tensor<1xf32, #sa3> {
    ^bb0(%p: f32, %q: f32):
      %gt = arith.cmpf ogt, %q, %p : f32
      %m = arith.select %gt, %q, %p : f32
      layout.yield %m : f32
    }
    layout.store %s, %b : tensor<1xf32, #sa3>, !R3
  }
  func.return
}
