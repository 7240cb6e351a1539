// layout.scan_region lowered: a running argmax along rows of 512 spread over 4 warps;
// each combination is the combiner region's ops on scalars, both operands move
// together (one shuffle each per step of the lane scan, one shared-memory buffer each
// for the warps' totals). --check-equivalence compares with the CPU reference
// executor, which combines in the same order.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @running_argmax: equivalent after 'default'
// CHECK-LABEL: running_argmax_kernel(
// CHECK-DAG: __shared__ alignas(16) float scan{{.*}}[128];
// CHECK-DAG: __shared__ alignas(16) int scan{{.*}}[128];
// CHECK: const float [[S:shfl.*]] = __shfl_sync(0xffffffffu, [[X:t_[0-9]+]], [[L:t_[0-9]+]], 32);
// CHECK-NEXT: const int [[SI:shfl.*]] = __shfl_sync(0xffffffffu, [[XI:t_[0-9]+]], [[L]], 32);
// CHECK-NEXT: const bool [[P:p_[0-9]+]] = [[X]] > [[S]];
// CHECK: // scan across 4 warp(s) x 1 chunk(s) via smem: 1 total(s) per thread, one barrier
// CHECK: __syncthreads();
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(4,512):(512,1)>, gmem>
!GI = !layout.tensor<i32, #layout.cute<(4,512):(512,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,512):(512,1)>, gmem>
!TI = !layout.tensor<i32, #layout.cute<(1,512):(512,1)>, gmem>
func.func @running_argmax(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %idx: !layout.ptr<i32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c = layout.view %idx : !layout.ptr<i32, align 16> -> !GI
  %cg = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%cg, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 512>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 512>} : !G -> !T
    %tc = layout.tile %c[%bx, %c0] {tile = array<i64: 1, 512>} : !GI -> !TI
    %x = layout.load %ta : !T -> tensor<1x512xf32, #b>
    %i0 = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.slice<{dim = 0, parent = #b}>>
    %i1 = layout.expand_dims %i0 {axis = 0 : i64} : tensor<512xi32, #layout.slice<{dim = 0, parent = #b}>> -> tensor<1x512xi32, #b>
    %m, %j = layout.scan_region %x, %i1 {axis = 1 : i64} : tensor<1x512xf32, #b>, tensor<1x512xi32, #b> -> tensor<1x512xf32, #b>, tensor<1x512xi32, #b> {
    ^bb0(%p: f32, %pi: i32, %q: f32, %qi: i32):
      %gt = arith.cmpf ogt, %q, %p : f32
      %v = arith.select %gt, %q, %p : f32
      %w = arith.select %gt, %qi, %pi : i32
      layout.yield %v, %w : f32, i32
    }
    layout.store %m, %tb : tensor<1x512xf32, #b>, !T
    layout.store %j, %tc : tensor<1x512xi32, #b>, !TI
  }
  func.return
}
