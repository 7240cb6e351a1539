// The cuda target on a warp_specialize region run apart (dialects/layout_roles.py,
// `warpgroups(3, 1) apart(0)`): one copy of the region's code on warpgroups 0..2, the
// thread id rebased to its warpgroup (tid & 127), `layout.warpgroup_index` the
// warpgroup (tid >> 7), each warpgroup's 64 rows through its rows of one shared buffer
// and a TMA store meeting its own 128 threads at named barrier 1 + its index
// (`bar.sync %0, 128` with the id in a register), elected per warpgroup. Equivalent
// after `default` (the executor runs each warpgroup as a region of its own at both
// levels). Built by tests/unit/test_warp_specialize_apart.py's `_apart`.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: // @apart: equivalent after 'default'

// CHECK-LABEL: // kernel apart_kernels::apart_kernel: 32-bit indices, block (512, 1, 1)
// CHECK:       if (threadIdx.x < 384) {  // warpgroups 0..2
// CHECK-NEXT:    const int [[W:t[_0-9]*]] = (int)((unsigned int)tid >> (unsigned int)7);
// CHECK-NEXT:    const int [[T:t[_0-9]*]] = tid & 127;
// CHECK:         // TMA store (cp.async.bulk.tensor): box 32x64 (dims [1, 0] of the view), no swizzle, 8192 bytes
// CHECK-NEXT:    tilec_fence_proxy_async();
// CHECK-NEXT:    asm volatile("bar.sync %0, 128;" :: "r"((int)(1 + [[W]])) : "memory");
// CHECK-NEXT:    const bool [[P:p[_0-9]*]] = [[T]] == 0;
// CHECK-NEXT:    if ([[P]]) {
// CHECK-NEXT:      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK:         asm volatile("bar.sync %0, 128;" :: "r"((int)(1 + [[W]])) : "memory");
// CHECK-NEXT:  } else {  // warpgroup 3
// CHECK-NOT:   bar.sync

func.func @apart(%a: !layout.ptr<f32, align 16>, %out: !layout.ptr<f32, align 16>) {
  %0 = layout.view %a : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(192,32):(32,1)>, gmem>
  %1 = layout.view %out : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(192,32):(32,1)>, gmem>
  %2 = arith.constant 2 : index
  %3 = arith.constant 1 : index
  %4 = arith.constant 1 : index
  layout.launch grid(%2, %3, %4) threads(512) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %5 = layout.alloc : !layout.tensor<f32, #layout.cute<(192,32):(32,1)>, smem>
    layout.warp_specialize warpgroups(3, 1) apart(0) {
      %6 = layout.warpgroup_index
      %7 = arith.constant 0 : index
      %8 = layout.tile %5[%6, %7] {tile = array<i64: 64, 32>} : !layout.tensor<f32, #layout.cute<(192,32):(32,1)>, smem> -> !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, smem>
      %9 = layout.tile %0[%6, %7] {tile = array<i64: 64, 32>} : !layout.tensor<f32, #layout.cute<(192,32):(32,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
      %10 = layout.load %9 : !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem> -> tensor<64x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
      %11 = arith.constant 1.000000e+00 : f32
      %12 = layout.splat %11 : f32 -> tensor<64x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
      %13 = arith.addf %10, %12 : tensor<64x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
      layout.store %13, %8 : tensor<64x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, smem>
      %14 = layout.tile %1[%6, %7] {tile = array<i64: 64, 32>} : !layout.tensor<f32, #layout.cute<(192,32):(32,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
      layout.tma_store %8, %14 : !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, smem>, !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
      layout.tma_store_wait {pending = 0 : i64}
    }, {
    }
  }
  func.return
}
