// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-convert-layout,lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Regression: a reduction of a #layout.linear tensor gives a
// #layout.slice<{dim = 1, parent = #layout.linear<...>}> tensor, whose linear form is
// the parent's with the sliced dim dropped (Triton's SliceEncodingAttr::toLinearLayout).
// It used not to build: the cost model called the conversion below unknown (so shared
// memory) and lower-to-gpu failed on the reduction.

// EQ: @reduce_linear: equivalent

// Lane l of the #SL slice holds rows l mod 16 and l mod 16 + 16 (lanes 16-31 copy lanes
// 0-15), so row l, which lane l holds in #SB, is already in its registers: the
// conversion is a register selection, not a shared-memory round trip.
// CHECK-LABEL: func.func @reduce_linear
// CHECK:         layout.reduce %{{.*}} -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.linear<
// CHECK-NEXT:    layout.convert_layout
// CHECK-NEXT:    layout.store
// CUDA:          __global__
// CUDA:          convert_layout in registers
#L = #layout.linear<{register = [[0, 1], [0, 2], [16, 0], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4]], warp = [[0, 8], [0, 0]], block = []}>
#B = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#SL = #layout.slice<{dim = 1, parent = #L}>
#SB = #layout.slice<{dim = 1, parent = #B}>
!G1 = !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
func.func @reduce_linear(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #L>
    %r = layout.reduce %v {axis = 1 : i64, kind = "max"} : tensor<32x32xf32, #L> -> tensor<32xf32, #SL>
    %w = layout.convert_layout %r : tensor<32xf32, #SL> -> tensor<32xf32, #SB>
    layout.store %w, %b : tensor<32xf32, #SB>, !G1
  }
  func.return
}
