// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @tma_clip_tail: equivalent after
// A TMA load of a tensor's last box along its rows clipped to the rows left (`layout.tma_load
// {clip, tail}`): M = 100 rows at run time, the second 64-row box's 36 rows (a decode GEMM's
// last block row, q10048). The host's map carries `clip` and `tail` (the launcher cuts its
// outermost box extent to (M - 1) mod 64 + 1), a map of its own beside the unclipped one of
// the same view; the bytes the copy lands (36 x 64 x 4) are expected at run time; the rows past
// M are not written (the store of the tile reads only rows inside its tensor).

// CHECK-LABEL: func.func @tma_clip_tail
// CHECK:      cuda.tensor_map %src(%{{.*}}, %m, %{{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64, clip, tail}
// CHECK:      cuda.tensor_map %dst(%{{.*}}, %m, %{{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64}
// CHECK:      "gpu.func"
// CHECK:      cuda.mbarrier_expect_tx %mbar, %{{.*}} : memref<1xi64, 3 : i64>
// CHECK:      cuda.comment "TMA load (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), no swizzle, 16384 bytes"
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT:   cuda.tma_load %smem, %src_map, %mbar[%{{.*}}, %{{.*}}]

!D = !layout.tensor<f32, #layout.cute<(?,64):(64,1)>, gmem>
!DT = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @tma_clip_tail(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) attributes {tilec.args = {m = 100 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !D
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !D
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %row = arith.constant 256 : index
  %m1 = arith.subi %m, %c1 : index
  %r = arith.remui %m1, %c64 : index
  %left = arith.addi %r, %c1 : index
  %bytes = arith.muli %left, %row : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%c1, %c0] {tile = array<i64: 64, 64>} : !D -> !DT
    %tb = layout.tile %b[%c1, %c0] {tile = array<i64: 64, 64>} : !D -> !DT
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_expect_tx %bar, %bytes
    layout.mbarrier_arrive %bar
    layout.tma_load %ta, %s, %bar {clip, tail} : !DT, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !DT
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar
  }
  func.return
}
