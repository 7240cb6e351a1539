// software-pipeline on a TMA loop whose compute is no wgmma (nothing stays in flight):
// the sum of the 64 x 64 column tiles of A, each loaded into a shared tile by TMA,
// read into registers and added to the carried sum. Each unrolled step first meets
// the block (every thread is done with the previous step's stage), issues the load
// of the tile S - 1 ahead into that stage, then waits for its own and adds it (5 steps
// under 3 stages: one whole round in the loop, the last 2 steps peeled after it).
// RUN: tilec %s -p "software-pipeline{num_stages=3}" | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3},default" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @tile_sum: equivalent after

#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
!GA = !layout.tensor<f32, #layout.cute<(64,320):(320,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<f32, #layout.cute<(64,64):(320,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
!T = tensor<64x64xf32, #bl>

// CHECK-LABEL: func.func @tile_sum
// CHECK:      scf.for %kt = %c0 to %rounds_end step %nstep iter_args(%s0 = %zero) -> ({{.*}}) {
// CHECK:        %parity = arith.remui %round
// CHECK-NEXT:   layout.barrier
// CHECK:        scf.if %{{.*}} {
// CHECK:          layout.mbarrier_arrive %[[B2:[a-z0-9_]+]] {tx = 16384 : i64}
// CHECK-NEXT:     layout.tma_load %{{.*}}, %{{.*}}, %[[B2]]
// CHECK-NEXT:   }
// CHECK-NEXT:   layout.mbarrier_wait %bar, %parity
// CHECK-NEXT:   %t = layout.load %sa
// CHECK-NEXT:   %s = arith.addf %s0, %t
// CHECK-NOT:  layout.mma_wait

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
