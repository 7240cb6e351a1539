// warp-specialize{persistent=P}: the 3 x 2 tiles of C (64 x 64, 4 K steps each) on a
// grid of min(P, 6) blocks; each region loops over its block's tiles t = pid, pid +
// nprog, ... (block coordinates t / 2, t % 2), the ring's round counted over the
// block's K steps (kround = j * 2 + round for its j-th tile, 2 rounds a tile); the
// consumers hand the tile's last stage back after its K loop and store its C.
// RUN: tilec %s -p "warp-specialize{num_stages=2 persistent=4}" | filecheck %s
// RUN: tilec %s -p "warp-specialize{num_stages=2 persistent=4}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=4 persistent=2},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p "warp-specialize{num_stages=3 persistent=4}" 2>&1 | filecheck %s --check-prefix=TRIP

// EQ: @gemm: equivalent after
// TRIP: error: 'scf.for': warp-specialize: persistent=4: the K loop's trip count must be static and a multiple of num_stages (3)

// CHECK-LABEL: func.func @gemm
// CHECK:      %tiles = arith.muli %gm, %gn : index
// CHECK-NEXT: %[[P:.*]] = arith.constant 4 : index
// CHECK-NEXT: %nprog = arith.minui %[[P]], %tiles : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: layout.launch grid(%nprog, %[[ONE]], %c1) threads(256) {
// CHECK:      layout.warp_specialize warpgroups(1, 1) {
// CHECK:        scf.for %tile = %bx to %tiles step %nprog {
// CHECK-NEXT:     %[[OFF:.*]] = arith.subi %tile, %bx : index
// CHECK-NEXT:     %j = arith.divui %[[OFF]], %nprog : index
// CHECK-NEXT:     %[[BX:.*]] = arith.divui %tile, %gn : index
// CHECK-NEXT:     %[[BY:.*]] = arith.remui %tile, %gn : index
// CHECK:          %kround = arith.addi
// CHECK:          layout.mma_wait %{{.*}} {pending = 0 : i64}
// CHECK-NEXT:     layout.mbarrier_arrive %{{.*}}
// CHECK-NEXT:     %tc = layout.tile %c[%[[BX]], %[[BY]]]
// CHECK-NEXT:     layout.store
// CHECK:      }, {
// CHECK:        scf.for %{{.*}} = %bx to %tiles step %nprog {
// CHECK:          %first = arith.cmpi eq, %kround{{.*}}, %c0_p : index

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(192,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(192,128):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm = arith.constant 3 : index
  %gn = arith.constant 2 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%gm, %gn, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }
  func.return
}
