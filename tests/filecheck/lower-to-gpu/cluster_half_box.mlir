// A multicast tile split within its box (dialects/layout_tma.py `tma_plan`: the shared
// side of a TMA copy may be an unmasked `layout.tile` of its buffer): each block of a
// 2-block cluster loads half of the rows of one 64 x 32 f16 tile (64-byte swizzle) into
// its half of the shared buffer (rows 32 rank .. 32 rank + 31: 2048 bytes in, a multiple
// of the swizzle's 512-byte repeat), multicast to both (`{multicast = 3}`), so the
// buffer of each block holds the whole tile; both store it. Lowered: the second half's
// `cuda.tma_load` writes a 1024-element part of the buffer from element 1024 on (a
// `memref.subview`). The same program runs equal before and after, and the executor
// checks the barrier's 4096 bytes against the two half boxes landing on it.
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s | tilec | filecheck %s --check-prefix=RT
// RUN: tilec %s -p lower-to-gpu | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s
// EQ: @half_boxes: equivalent after

// RT-LABEL: func.func @half_boxes
// RT:       %{{.*}} = layout.tile %s[%{{.*}}, %{{.*}}] {tile = array<i64: 32, 32>} : !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 0 o (64,32):(32,1)>, smem> -> !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 0 o (32,32):(32,1)>, smem>
// RT:       layout.tma_load %{{.*}}, %{{.*}}, %bar {multicast = 3 : i64}

// GPU-LABEL: "gpu.func"()
// GPU:       cuda.tma_load {{.*}} {multicast = 3 : i64} : memref<2048xf16, 3 : i64>, memref<1xi64, 3 : i64>
// GPU:       memref.subview %smem[%{{.*}}] [1024] [1] : memref<2048xf16, 3 : i64> to memref<1024xf16, strided<[1], offset: ?>, 3 : i64>
// GPU:       cuda.tma_load {{.*}} {multicast = 3 : i64} : memref<1024xf16, strided<[1], offset: ?>, 3 : i64>, memref<1xi64, 3 : i64>

// CHECK-LABEL: // kernel half_boxes_kernels::half_boxes_kernel
// CHECK:        extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
// CHECK:        .multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
// CHECK:        .multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"

!G = !layout.tensor<f16, #layout.cute<(128,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(64,32):(32,1)>, gmem>
!S = !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 0 o (64,32):(32,1)>, smem>
!P = !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 0 o (32,32):(32,1)>, smem>
func.func @half_boxes(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c2, %c1, %c1) threads(128) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rank = layout.cluster_rank
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %done = layout.mbarrier_init {count = 2 : i64}
    layout.cluster_sync
    layout.mbarrier_arrive %bar {tx = 4096 : i64}
    %first = arith.cmpi eq, %rank, %c0 : index
    scf.if %first {
      %h0 = layout.tile %a[%c0, %c0] {tile = array<i64: 32, 32>} : !G -> !H
      %p0 = layout.tile %s[%c0, %c0] {tile = array<i64: 32, 32>} : !S -> !P
      layout.tma_load %h0, %p0, %bar {multicast = 3 : i64} : !H, !P
    }
    %second = arith.cmpi eq, %rank, %c1 : index
    scf.if %second {
      %h1 = layout.tile %a[%c1, %c0] {tile = array<i64: 32, 32>} : !G -> !H
      %p1 = layout.tile %s[%c1, %c0] {tile = array<i64: 32, 32>} : !S -> !P
      layout.tma_load %h1, %p1, %bar {multicast = 3 : i64} : !H, !P
    }
    layout.mbarrier_wait %bar, %c0
    %d = layout.tile %b[%bx, %c0] {tile = array<i64: 64, 32>} : !G -> !T
    layout.tma_store %s, %d : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_arrive %done on %c0
    layout.mbarrier_arrive %done on %c1
    layout.mbarrier_wait %done, %c0
    layout.cluster_sync
  }
  func.return
}
