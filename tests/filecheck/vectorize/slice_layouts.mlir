// RUN: tilec %s -p vectorize | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @row_weights: equivalent after
// EQ: @row_weights_broadcast: equivalent after
// EQ: @column_slice: equivalent after
// EQ: @unaligned_weights: equivalent after
// The `vector` of loads and stores of a slice layout (a layer norm's weights, Gluon's
// SliceLayout(0, parent)): the parent's run of consecutive registers along the kept dim
// (its linear form's first register bases), as for the blocked parent itself.

// 8 consecutive f16 per thread along the row: one 16-byte access for each 8, both ways.
// CHECK-LABEL: func.func @row_weights
// CHECK:         layout.load %{{.*}} {vector = 8 : i64} : {{.*}} -> tensor<1024xf16, #layout.slice<{dim = 0
// CHECK:         layout.store %{{.*}} {vector = 8 : i64} : tensor<1024xf16, #layout.slice<{dim = 0
// CUDA-LABEL:    row_weights_kernel(
// CUDA-COUNT-4:  = tilec_bitcast<f16x8>(*reinterpret_cast<const i32x4*>(wp + {{.*}}));
// CUDA-NOT:      wp[
// CUDA:          }
#B = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S = #layout.slice<{dim = 0, parent = #B}>
!V = !layout.tensor<f16, #layout.cute<(1024):(1)>, gmem>
func.func @row_weights(%wp: !layout.ptr<f16, align 16>, %op: !layout.ptr<f16, align 16>) {
  %w = layout.view %wp : !layout.ptr<f16, align 16> -> !V
  %o = layout.view %op : !layout.ptr<f16, align 16> -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %w : !V -> tensor<1024xf16, #S>
    layout.store %x, %o : tensor<1024xf16, #S>, !V
  }
  func.return
}

// Four warps along the sliced rows hold the same elements (warp bases 0 along the row):
// still 4 f32 per access.
// CHECK-LABEL: func.func @row_weights_broadcast
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {vector = 4 : i64}
#B4 = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#S4 = #layout.slice<{dim = 0, parent = #B4}>
!W = !layout.tensor<f32, #layout.cute<(256):(1)>, gmem>
func.func @row_weights_broadcast(%wp: !layout.ptr<f32, align 16>, %op: !layout.ptr<f32, align 16>) {
  %w = layout.view %wp : !layout.ptr<f32, align 16> -> !W
  %o = layout.view %op : !layout.ptr<f32, align 16> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %w : !W -> tensor<256xf32, #S4>
    %y = arith.addf %x, %x : tensor<256xf32, #S4>
    layout.store %y, %o : tensor<256xf32, #S4>, !W
  }
  func.return
}

// A slice along the other dim: one element per thread along the kept (row) dim, lanes
// consecutive: nothing wider than one element (no `vector`; the note says why).
// CHECK-LABEL: func.func @column_slice
// CHECK-NOT:     vector =
// CHECK:         layout.load %w {tilec.vector_note = "vector 1: register 1 is not the element after register 0 along any dim (a register run of 1)"} :
// CHECK-NOT:     vector =
// CHECK:         func.return
#BC = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#SC = #layout.slice<{dim = 1, parent = #BC}>
!C = !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
func.func @column_slice(%wp: !layout.ptr<f32, align 16>, %op: !layout.ptr<f32, align 16>) {
  %w = layout.view %wp : !layout.ptr<f32, align 16> -> !C
  %o = layout.view %op : !layout.ptr<f32, align 16> -> !C
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %w : !C -> tensor<32xf32, #SC>
    layout.store %x, %o : tensor<32xf32, #SC>, !C
  }
  func.return
}

// A pointer aligned to 4 bytes only: a run of 8 f16 in registers, but 2 per access.
// CHECK-LABEL: func.func @unaligned_weights
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 2 of a register run of 8 along dim 0: 4 is not legal: the buffer is aligned to 4 bytes, less than 8", vector = 2 : i64}
!U = !layout.tensor<f16, #layout.cute<(1024):(1)>, gmem>
func.func @unaligned_weights(%wp: !layout.ptr<f16, align 4>, %op: !layout.ptr<f16, align 16>) {
  %w = layout.view %wp : !layout.ptr<f16, align 4> -> !U
  %o = layout.view %op : !layout.ptr<f16, align 16> -> !U
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %w : !U -> tensor<1024xf16, #S>
    layout.store %x, %o : tensor<1024xf16, #S>, !U
  }
  func.return
}
