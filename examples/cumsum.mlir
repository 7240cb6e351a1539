// Row cumsum (inclusive prefix sum along each row), written in tilec: one row of 1024
// floats per block of 2 warps, 16 bytes per thread per access (coalesced), the pattern
// repeated 4 times along the row in registers (chunks). layout.scan scans each thread's
// 4 consecutive elements of a chunk, then across lanes with shuffles, then the totals of
// the 2 warps x 4 chunks through shared memory (one barrier).
//
//   tilec examples/cumsum.mlir --run cpu
//   tilec examples/cumsum.mlir --run gpu --check   (bit for bit: the reference adds in the GPU's order)
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,1024):(1024,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem>
func.func @cumsum(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %cg = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%cg, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x1024xf32, #b>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #b>
    layout.store %y, %tb : tensor<1x1024xf32, #b>, !T
  }
  func.return
}
