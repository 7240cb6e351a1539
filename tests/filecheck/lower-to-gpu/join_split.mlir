// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @interleave: equivalent after
// EQ: @deinterleave: equivalent after
// layout.join and layout.split move no data: the joined layout holds the new minor
// dimension in register bit 0 (as Triton's join does), so each thread interleaves (or
// takes apart) its own registers: no shared memory, no shuffles.
// @interleave: dst[i, j, :] = (x[i, j], 2 x[i, j]); @deinterleave: dst[i, j] = src[i, j, 0] - src[i, j, 1].
// CHECK-LABEL: interleave_kernel(
// CHECK-NOT:     __shared__
// CHECK-NOT:     __shfl_sync
// CHECK:         }
// CHECK-LABEL: deinterleave_kernel(
// CHECK-NOT:     __shared__
// CHECK-NOT:     __shfl_sync
// CHECK:         }
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#j = #layout.blocked<{sizePerThread = [1, 4, 2], threadsPerWarp = [8, 4, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>
!X = !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
!J = !layout.tensor<f32, #layout.cute<(32,16,2):(32,2,1)>, gmem>
func.func @interleave(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !X
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !J
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !X -> tensor<32x16xf32, #b>
    %y = arith.addf %x, %x : tensor<32x16xf32, #b>
    %z = layout.join %x, %y : tensor<32x16xf32, #b> -> tensor<32x16x2xf32, #j>
    layout.store %z, %b : tensor<32x16x2xf32, #j>, !J
  }
  func.return
}
func.func @deinterleave(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !J
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !X
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %z = layout.load %a : !J -> tensor<32x16x2xf32, #j>
    %x, %y = layout.split %z : tensor<32x16x2xf32, #j> -> tensor<32x16xf32, #b>
    %d = arith.subf %x, %y : tensor<32x16xf32, #b>
    layout.store %d, %b : tensor<32x16xf32, #b>, !X
  }
  func.return
}
