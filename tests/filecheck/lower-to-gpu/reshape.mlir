// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @flatten: equivalent after
// layout.reshape moves no data when the result layout gives each thread the elements
// it holds: a 16x32 tile with 4 consecutive elements per thread, 8 lanes per row and 4
// warps, flattened, is the 1-D layout with 4 per thread, 32 lanes and 4 warps.
// CHECK-LABEL: flatten_kernel(
// CHECK-NOT:     __shared__
// CHECK-NOT:     __shfl_sync
// CHECK-NOT:     __syncthreads
// CHECK:         }
#row = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#flat = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!F = !layout.tensor<f32, #layout.cute<512:1>, gmem>
func.func @flatten(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !F
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<16x32xf32, #row>
    %f = layout.reshape %v : tensor<16x32xf32, #row> -> tensor<512xf32, #flat>
    layout.store %f, %b : tensor<512xf32, #flat>, !F
  }
  func.return
}
