// layout.slice of swizzled shared views feeding wgmma: rank-3 TMA buffers (a leading
// mode of 1, one mode per mode of the rank-3 global views, as the TMA needs) sliced to
// the 2-D operands. The slice keeps the 128-byte swizzle, so the descriptors are those
// of the unsliced tiles: A K-major, B K-major (K^T read from K's rows), SBO 1024.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: equivalent after 'default'

// CHECK-LABEL: // kernel
// CHECK:      TMA load (cp.async.bulk.tensor): box 64x1x64 (dims [2, 0, 1] of the view), swizzle 128B, 8192 bytes
// CHECK:      cp.async.bulk.tensor.3d
// The first wgmma of an accumulator of zeros: scale-d 0 ("r"(0)), its registers written
// only ("=f", none zeroed first); the next K slices accumulate ("+f", "r"(1)).
// CHECK:      wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-NEXT: : "=f"(d), "=f"(d_1),
// CHECK-NEXT: : "l"(tilec_wgmma_desc(smem + 0, 0u, 1024u, 1u)), "l"(tilec_wgmma_desc(smem_1 + 0, 0u, 1024u, 1u)), "r"(0)
// CHECK:      wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-NEXT: : "+f"(d_32),
// CHECK-NEXT: : "l"({{.*}}, "r"(1)
// CHECK:      // layout.mma 64x64x64 (bf16): 4 wgmma.m64n64k16 per warpgroup, A from smem; A K-major, swizzle 128B, LBO 0, SBO 1024; B K-major, swizzle 128B, LBO 0, SBO 1024

!Q = !layout.tensor<bf16, #layout.cute<(2,64,64):(4096,64,1)>, gmem>
!KT = !layout.tensor<bf16, #layout.cute<(2,64,64):(4096,1,64)>, gmem>
!SQ = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (1,64,64):(0,64,1)>, smem>
!SK = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (1,64,64):(0,1,64)>, smem>
!ACC = tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
func.func @sliced(%pq: !layout.ptr<bf16, align 16>, %pk: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %q = layout.view %pq : !layout.ptr<bf16, align 16> -> !Q
  %kt = layout.view %pk : !layout.ptr<bf16, align 16> -> !KT
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(2,64,64):(4096,64,1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sq = layout.alloc : !SQ
    %sk = layout.alloc : !SK
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 16384 : i64}
    %tq = layout.tile %q[%bx, %c0, %c0] {tile = array<i64: 1, 64, 64>} : !Q -> !layout.tensor<bf16, #layout.cute<(1,64,64):(4096,64,1)>, gmem>
    %tk = layout.tile %kt[%bx, %c0, %c0] {tile = array<i64: 1, 64, 64>} : !KT -> !layout.tensor<bf16, #layout.cute<(1,64,64):(4096,1,64)>, gmem>
    layout.tma_load %tq, %sq, %bar : !layout.tensor<bf16, #layout.cute<(1,64,64):(4096,64,1)>, gmem>, !SQ
    layout.tma_load %tk, %sk, %bar : !layout.tensor<bf16, #layout.cute<(1,64,64):(4096,1,64)>, gmem>, !SK
    layout.mbarrier_wait %bar, %c0
    %a = layout.slice %sq[0, _, _] : !SQ
    %b = layout.slice %sk[0, _, _] : !SK
    %zero = arith.constant dense<0.000000e+00> : !ACC
    %d = layout.mma %a, %b, %zero : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(1,64)>, smem>, !ACC
    %tc = layout.tile %c[%bx, %c0, %c0] {tile = array<i64: 1, 64, 64>} : !layout.tensor<f32, #layout.cute<(2,64,64):(4096,64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,64,64):(4096,64,1)>, gmem>
    %c2d = layout.slice %tc[0, _, _] : !layout.tensor<f32, #layout.cute<(1,64,64):(4096,64,1)>, gmem>
    layout.store %d, %c2d : !ACC, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  }
  func.return
}
