// software-pipeline{rolled=true} on a TMA loop whose compute is no wgmma (the input of
// tma_sync_compute.mlir: the sum of A's 64 x 64 column tiles): the staged buffer and
// the barrier array as in rolled_tma_gemm.mlir; each step first meets the block, loads
// the tile S-1 ahead into the stage the step before read, then waits on its own
// stage's barrier with the carried phase and adds its tile. Exact on the executor
// (no MMA rounding), at every depth and after lowering.
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true}" | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=2 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=4 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true},default" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @tile_sum: equivalent after

// CHECK-LABEL: func.func @tile_sum
// CHECK:      %sa = layout.alloc : !layout.tensor<f32, #layout.cute<(3,64,64):(4096,64,1)>, smem>
// CHECK:      %bar = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
// CHECK:      scf.for %kt = %c0 to %nk step %c1 iter_args(%s0 = %zero, %stage = %c0_p, %phase = %c0_p)
// CHECK-NEXT:   %[[S:.*]] = layout.slice %sa[%stage, _, _]
// CHECK-NEXT:   %[[B:.*]] = layout.mbarrier_at %bar[%stage]
// CHECK:        %ahead = arith.select
// CHECK-NEXT:   layout.barrier
// CHECK:        scf.if
// CHECK-NEXT:     %[[SA:.*]] = layout.slice %sa[%ahead, _, _]
// CHECK-NEXT:     %[[BA:.*]] = layout.mbarrier_at %bar[%ahead]
// CHECK:          layout.mbarrier_arrive %[[BA]] {tx = 16384 : i64}
// CHECK-NEXT:     layout.tma_load %{{.*}}, %[[SA]], %[[BA]]
// CHECK:        layout.mbarrier_wait %[[B]], %phase
// CHECK-NEXT:   layout.load %[[S]]
// CHECK:        scf.yield

#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
!GA = !layout.tensor<f32, #layout.cute<(64,320):(320,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<f32, #layout.cute<(64,64):(320,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
!T = tensor<64x64xf32, #bl>
func.func @tile_sum(%pa: !layout.ptr<f32, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<f32, align 16> -> !GA
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 5 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !T
    %sum = scf.for %kt = %c0 to %nk step %c1 iter_args(%s0 = %zero) -> (!T) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %t = layout.load %sa : !S -> !T
      %s = arith.addf %s0, %t : !T
      layout.barrier
      scf.yield %s : !T
    }
    layout.store %sum, %c : !T, !GC
  }
  func.return
}
