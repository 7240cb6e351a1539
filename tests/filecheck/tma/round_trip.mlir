// The `tma` pass: a block-level copy of a global tile into shared memory and back
// becomes a TMA load (an mbarrier expecting the box's bytes, waited on phase 0) and a
// TMA store with its wait; the reference executor gives the same results.
// RUN: tilec %s -p tma | filecheck %s
// RUN: tilec %s -p tma --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: equivalent after

// CHECK-LABEL: func.func @round_trip
// CHECK:      %s = layout.alloc
// CHECK-NEXT: %[[BAR:.*]] = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: layout.mbarrier_arrive %[[BAR]] {tx = 16384 : i64}
// CHECK-NEXT: layout.tma_load %ta, %s, %[[BAR]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: layout.mbarrier_wait %[[BAR]], %[[ZERO]]
// CHECK-NEXT: layout.barrier
// CHECK-NEXT: layout.tma_store %s, %tb
// CHECK-NEXT: layout.tma_store_wait {pending = 0 : i64}
// CHECK-NOT:  layout.copy

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @round_trip(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.barrier
    layout.copy %s, %tb : !S, !T
  }
  func.return
}
