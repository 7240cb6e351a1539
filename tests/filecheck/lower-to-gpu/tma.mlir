// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @tma_edges: equivalent after
// TMA copies of 64x64 tiles of a 100x120 tensor (edge boxes partly outside: zero fill
// on load, clipped on store) through a plain shared tile.
// The host makes one tensor map per view (dims innermost first, the row stride in
// elements), the kernel takes them as parameters; thread 0 inits the barrier, arrives
// with the box's bytes and issues the copy; every thread waits on phase 0; the store
// is fenced, issued by thread 0 and waited on.

// CHECK-LABEL: func.func @tma_edges(%src: memref<12000xf32>, %dst: memref<12000xf32>)
// CHECK-DAG:  %[[D0:.*]] = arith.constant 120 : index
// CHECK-DAG:  %[[D1:.*]] = arith.constant 100 : index
// CHECK:      %src_map = cuda.tensor_map %src(%[[D0]], %[[D1]], %{{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64} : memref<12000xf32>
// CHECK:      %dst_map = cuda.tensor_map %dst(
// CHECK:      "gpu.launch_func"({{.*}}, %src, %dst, %src_map, %dst_map)
// CHECK:      ^bb0(%src: memref<12000xf32>, %dst: memref<12000xf32>, %src_map: !cuda.tensor_map, %dst_map: !cuda.tensor_map):
// CHECK:      %smem = memref.alloca() {alignment = 128 : i64} : memref<4096xf32, 3 : i64>
// CHECK:      %mbar = memref.alloca() {alignment = 8 : i64} : memref<1xi64, 3 : i64>
// CHECK:      %[[T0:.*]] = arith.cmpi eq, %tid, %{{.*}} : index
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.mbarrier_init %mbar, 1
// CHECK:      "gpu.barrier"()
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.mbarrier_arrive_expect_tx %mbar, 16384
// CHECK:      cuda.comment "TMA load (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), no swizzle, 16384 bytes"
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.tma_load %smem, %src_map, %mbar[%{{.*}}, %{{.*}}]
// CHECK:      cuda.mbarrier_wait %mbar, %{{.*}}
// CHECK:      cuda.fence_proxy_async
// CHECK-NEXT: "gpu.barrier"()
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.tma_store %dst_map[%{{.*}}, %{{.*}}], %smem
// CHECK-NEXT:   cuda.bulk_commit_group
// CHECK:      scf.if %[[T0]] {
// CHECK-NEXT:   cuda.bulk_wait_group_read 0
// CHECK:      "gpu.barrier"()
// CHECK:      "gpu.barrier"()
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.mbarrier_inval %mbar

!G = !layout.tensor<f32, #layout.cute<(100,120):(120,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(120,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @tma_edges(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 16384 : i64}
    layout.tma_load %ta, %s, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar
  }
  func.return
}
