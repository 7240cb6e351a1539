// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @trans: equivalent after
// layout.permute moves no data: the result layout is the source's with its dims
// swapped, so each thread keeps its registers: no shared memory, no shuffles. Stored
// through a column-major view, it is a transpose (each thread writes its 4 elements
// of a column of the destination).
// CHECK-LABEL: trans_kernel(
// CHECK-NOT:     __shared__
// CHECK-NOT:     __shfl_sync
// CHECK-NOT:     __syncthreads
// CHECK:         }
#row = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
func.func @trans(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<16x32xf32, #row>
    %t = layout.permute %v {order = array<i64: 1, 0>} : tensor<16x32xf32, #row> -> tensor<32x16xf32, #col>
    layout.store %t, %b : tensor<32x16xf32, #col>, !H
  }
  func.return
}
