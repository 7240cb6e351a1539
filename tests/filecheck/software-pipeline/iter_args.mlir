// software-pipeline on a loop with several iter_args: two accumulators (B's tile in two
// column chunks, one wgmma `layout.mma` each; both become {async} + mma_wait
// {pending = 1}, one mma_wait {pending = 0} after the loop gives both) and an index
// counted by the loop (carried as it is, its uses unchanged). 5 K steps under 2 and 3
// stages, a trip count the pass does not know (5 + the block's z, 0): the steps past the
// end are skipped, yielding all three values unchanged.
// RUN: tilec %s -p "software-pipeline{num_stages=2}" | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3},default" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @chunks: equivalent after

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(64,320):(320,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(320,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!GN = !layout.tensor<i32, #layout.cute<(1):(1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>

// CHECK-LABEL: func.func @chunks
// CHECK:      %[[R0:[0-9a-z_]+]], %[[R1:[0-9a-z_]+]], %[[R2:[0-9a-z_]+]] = scf.for %kt = %c0 to %nkd step %nstep iter_args(%x0 = %zero, %y0 = %zero, %n0 = %c0) -> ({{.*}}, {{.*}}, index) {
// CHECK:        layout.mbarrier_wait %bar, %parity
// CHECK-NEXT:   %[[X:.*]] = layout.mma %sa, %sb0, %x0 {async}
// CHECK-NEXT:   %[[XW:.*]] = layout.mma_wait %[[X]] {pending = 1 : i64}
// CHECK-NEXT:   %[[Y:.*]] = layout.mma %sa, %sb1, %y0 {async}
// CHECK-NEXT:   %[[YW:.*]] = layout.mma_wait %[[Y]] {pending = 1 : i64}
// CHECK-NEXT:   %[[N:.*]] = arith.addi %n0, %c1 : index
// CHECK-NEXT:   layout.barrier
// CHECK:        %{{.*}}, %{{.*}}, %{{.*}} = scf.if %{{.*}} -> ({{.*}}, {{.*}}, index) {
// CHECK:        } else {
// CHECK-NEXT:     scf.yield %[[XW]], %[[YW]], %[[N]] : {{.*}}, {{.*}}, index
// CHECK-NEXT:   }
// CHECK:      %[[D0:[0-9a-z_]+]], %[[D1:[0-9a-z_]+]] = layout.mma_wait %[[R0]], %[[R1]] {pending = 0 : i64}
// CHECK:      layout.store %[[D0]], %tc0
// CHECK:      layout.store %[[D1]], %tc1
// CHECK:      arith.index_cast %[[R2]] : index to i32

func.func @chunks(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>, %pn: !layout.ptr<i32>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %gn = layout.view %pn : !layout.ptr<i32> -> !GN
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 5 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb0 = layout.alloc : !S
    %sb1 = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %nkd = arith.addi %nk, %bz : index
    %acc:3 = scf.for %kt = %c0 to %nkd step %c1 iter_args(%x0 = %zero, %y0 = %zero, %n0 = %c0) -> (!ACC, !ACC, index) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb0 = layout.tile %b[%kt, %c0] {tile = array<i64: 64, 64>} : !GB -> !TB
      %tb1 = layout.tile %b[%kt, %c1] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 24576 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb0, %sb0, %bar : !TB, !S
      layout.tma_load %tb1, %sb1, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %x = layout.mma %sa, %sb0, %x0 : !S, !S, !ACC
      %y = layout.mma %sa, %sb1, %y0 : !S, !S, !ACC
      %n = arith.addi %n0, %c1 : index
      layout.barrier
      scf.yield %x, %y, %n : !ACC, !ACC, index
    }
    %tc0 = layout.tile %c[%c0, %c0] {tile = array<i64: 64, 64>} : !GC -> !TC
    %tc1 = layout.tile %c[%c0, %c1] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc#0, %tc0 : !ACC, !TC
    layout.store %acc#1, %tc1 : !ACC, !TC
    %ni = arith.index_cast %acc#2 : index to i32
    layout.write %ni, %gn[%c0] : i32, !GN
  }
  func.return
}
