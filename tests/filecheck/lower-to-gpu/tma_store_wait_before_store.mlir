// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @wait_then_store: equivalent after
// A `tma_store_wait` right before a `tma_store` (the C ring's early waits, `c_early`): thread 0
// waits for the bulk group's reads and the block meets at the store's meeting, after its
// fence, not at one of its own; a wait before anything else meets as it did.

// CHECK-LABEL: func.func @wait_then_store(
// CHECK:      cuda.mbarrier_wait %mbar, %{{.*}}
// CHECK:      cuda.fence_proxy_async
// CHECK-NEXT: "gpu.barrier"()
// CHECK-NEXT: scf.if %[[T0:.*]] {
// CHECK-NEXT:   cuda.tma_store %dst_map[%{{.*}}, %{{.*}}], %smem
// CHECK-NEXT:   cuda.bulk_commit_group
// CHECK:      scf.if %[[T0]] {
// CHECK-NEXT:   cuda.bulk_wait_group_read 0
// CHECK-NOT:  "gpu.barrier"()
// CHECK:      cuda.fence_proxy_async
// CHECK-NEXT: "gpu.barrier"()
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.tma_store %dst2_map[%{{.*}}, %{{.*}}], %smem
// CHECK-NEXT:   cuda.bulk_commit_group
// CHECK:      scf.if %[[T0]] {
// CHECK-NEXT:   cuda.bulk_wait_group_read 0
// CHECK:      "gpu.barrier"()
// CHECK:      cuda.mbarrier_inval %mbar

!G = !layout.tensor<f32, #layout.cute<(100,120):(120,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(120,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @wait_then_store(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>,
                           %dst2: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %b2 = layout.view %dst2 : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb2 = layout.tile %b2[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 16384 : i64}
    layout.tma_load %ta, %s, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.tma_store %s, %tb2 : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar
  }
  func.return
}
