// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @tma_clip: equivalent after
// EQ: @tma_clip_dynamic: equivalent after
// A TMA load clipped to a tensor shorter than its box (`layout.tma_load {clip}`): 40 rows
// of a 64 x 64 box. The host's map of the clipped load carries `clip` (the launcher cuts
// its box to the dims: 40 rows), a map of its own beside the unclipped one of the same
// view; the bytes the copy lands (40 x 64 x 4) are expected at run time
// (`layout.mbarrier_expect_tx` -> `cuda.mbarrier_expect_tx` by the arriving thread)
// before an arrival expecting none; the rows past the tensor are not written (the store
// of the tile reads only rows inside its tensor).

// CHECK-LABEL: func.func @tma_clip(%src: memref<2560xf32>, %dst: memref<2560xf32>)
// CHECK:      %src_map = cuda.tensor_map %src(%{{.*}}, %{{.*}}, %{{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64, clip} : memref<2560xf32>
// CHECK:      %dst_map = cuda.tensor_map %dst(%{{.*}}, %{{.*}}, %{{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64} : memref<2560xf32>
// M rows at run time (M <= 64: the box cut to M rows), the bytes M x 64 x 4:
// CHECK:      func.func @tma_clip_dynamic
// CHECK:      cuda.tensor_map %src(%{{.*}}, %m, %{{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64, clip}
// CHECK:      "gpu.func"
// CHECK:      %[[T0:.*]] = arith.cmpi eq, %tid, %{{.*}} : index
// CHECK:      "gpu.barrier"()
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.mbarrier_expect_tx %mbar, %{{.*}} : memref<1xi64, 3 : i64>
// CHECK:      scf.if %[[T0]] {
// CHECK-NEXT:   cuda.mbarrier_arrive_expect_tx %mbar, 0
// CHECK:      cuda.comment "TMA load (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), no swizzle, 16384 bytes"
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   cuda.tma_load %smem, %src_map, %mbar[%{{.*}}, %{{.*}}]

!G = !layout.tensor<f32, #layout.cute<(40,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @tma_clip(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %bytes = arith.constant 10240 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%c0, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%c0, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_expect_tx %bar, %bytes
    layout.mbarrier_arrive %bar
    layout.tma_load %ta, %s, %bar {clip} : !T, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar
  }
  func.return
}

// M rows at run time (M <= 64: the box cut to M rows), the bytes M x 64 x 4.
!D = !layout.tensor<f32, #layout.cute<(?,64):(64,1)>, gmem>
!DT = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem, masked>
func.func @tma_clip_dynamic(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) attributes {tilec.args = {m = 37 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !D
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !D
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %row = arith.constant 256 : index
  %bytes = arith.muli %m, %row : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%c0, %c0] {tile = array<i64: 64, 64>} : !D -> !DT
    %tb = layout.tile %b[%c0, %c0] {tile = array<i64: 64, 64>} : !D -> !DT
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_expect_tx %bar, %bytes
    layout.mbarrier_arrive %bar
    layout.tma_load %ta, %s, %bar {clip} : !DT, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !DT
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar
  }
  func.return
}
