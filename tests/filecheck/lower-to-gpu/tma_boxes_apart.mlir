// A TMA copy of boxes apart (dialects/tma.py `TmaGeometry.copy_stride`): a 96 x 128 f16
// buffer K-major in two 128-byte swizzle panels (each of all 96 rows: 6144 elements apart,
// as a decode GEMM's B stage of K steps of 128), loaded as three 32-row chunks, each chunk's
// box 128 elements wide, so two boxes of 64 x 32 that lie 6144 elements apart (not
// compact). Lowered: each chunk's second `cuda.tma_load` writes 6144 elements after its
// first (`{offset = 6144}`; chunks 1 and 2 through a subview from their first row). The whole buffer is stored back (two compact boxes); the same
// program runs equal before and after, and the executor checks the barrier's 24576 bytes.
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s
// EQ: @chunks_of_panels: equivalent after

// GPU-LABEL: "gpu.func"()
// GPU:       cuda.tma_load %smem, %src_map, %mbar[%[[K0:.*]], %[[K0]]] : memref<12288xf16, 3 : i64>
// GPU-NEXT:  cuda.tma_load %smem, %src_map, %mbar[%{{.*}}, %[[K0]]] {offset = 6144 : i64} : memref<12288xf16, 3 : i64>
// GPU:       memref.subview %smem[%{{.*}}] [8192] [1] : memref<12288xf16, 3 : i64>
// GPU:       cuda.tma_load {{.*}} {offset = 6144 : i64} : memref<8192xf16

// CHECK-LABEL: // kernel chunks_of_panels_kernels::chunks_of_panels_kernel
// CHECK:        // TMA load (cp.async.bulk.tensor): 2 boxes 6144 elements apart 64x32 (dims [1, 0] of the view), swizzle 128B, 8192 bytes
// CHECK:        // TMA store (cp.async.bulk.tensor): 2 boxes 64x96 (dims [1, 0] of the view), swizzle 128B, 24576 bytes

!G = !layout.tensor<f16, #layout.cute<(96,128):(128,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(32,128):(128,1)>, gmem>
!S = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (96,(64,2)):(64,(1,6144))>, smem>
!P = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (32,(64,2)):(64,(1,6144))>, smem>
func.func @chunks_of_panels(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 24576 : i64}
    %h0 = layout.tile %a[%c0, %c0] {tile = array<i64: 32, 128>} : !G -> !H
    %p0 = layout.tile %s[%c0, %c0] {tile = array<i64: 32, 128>} : !S -> !P
    layout.tma_load %h0, %p0, %bar : !H, !P
    %h1 = layout.tile %a[%c1, %c0] {tile = array<i64: 32, 128>} : !G -> !H
    %p1 = layout.tile %s[%c1, %c0] {tile = array<i64: 32, 128>} : !S -> !P
    layout.tma_load %h1, %p1, %bar : !H, !P
    %h2 = layout.tile %a[%c2, %c0] {tile = array<i64: 32, 128>} : !G -> !H
    %p2 = layout.tile %s[%c2, %c0] {tile = array<i64: 32, 128>} : !S -> !P
    layout.tma_load %h2, %p2, %bar : !H, !P
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %b : !S, !G
    layout.tma_store_wait {pending = 0 : i64}
  }
  func.return
}
