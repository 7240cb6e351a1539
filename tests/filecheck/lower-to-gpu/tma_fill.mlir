// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @tma_fill: equivalent after
// A TMA load of a box narrower than its swizzle row: an 8 x 32 f16 tile (64 bytes a row) into the first 32
// columns of an 8 x 64 panel of a 128-byte swizzle (rows 128 bytes apart, as the copy engine lands such a box:
// `TmaGeometry.pad`). The host's map is the view's, box 32 x 8, 128-byte swizzle; the comment tells the
// padding and the box's bytes (512).

// CHECK-LABEL: func.func @tma_fill(%src: memref<640xf16>, %dst: memref<640xf16>)
// CHECK:      %src_map = cuda.tensor_map %src(%{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}) {box = array<i64: 32, 8>, swizzle = 128 : i64} : memref<640xf16>
// CHECK:      cuda.comment "TMA load (cp.async.bulk.tensor): box 32x8 (dims [1, 0] of the view), its rows padded x2 to the swizzle row, swizzle 128B, 512 bytes"
// CHECK-NEXT: scf.if
// CHECK-NEXT:   cuda.tma_load %smem, %src_map, %mbar[%{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}] : memref<512xf16, 3 : i64>

!G = !layout.tensor<f16, #layout.cute<(8,80):(80,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(8,32):(80,1)>, gmem, masked>
!P = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (8,64):(64,1)>, smem>
!S = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (8,32):(64,1)>, smem>
!R = tensor<8x32xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @tma_fill(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !G
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c3, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %panel = layout.alloc : !P
    %part = layout.tile %panel[%c0, %c0] {tile = array<i64: 8, 32>} : !P -> !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 512 : i64}
    %ta = layout.tile %a[%c0, %bx] {tile = array<i64: 8, 32>} : !G -> !T
    layout.tma_load %ta, %part, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    %v = layout.load %part : !S -> !R
    %tb = layout.tile %b[%c0, %bx] {tile = array<i64: 8, 32>} : !G -> !T
    layout.store %v, %tb : !R, !T
  }
  func.return
}
