// Gluon tutorial, 2D memcpy with a layout chosen by hand: a block of 4 warps
// loads a 64x64 tile with BlockedLayout([1,4],[8,4],[4,1],[1,0]) (each thread 4
// consecutive elements of a row: 16-byte accesses, a warp covers 8 rows of 16
// elements) and stores it with the same layout. The wrong layout for a
// transposed input is in gluon_memcpy_2d_wrong_layout.mlir.
#blocked = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @memcpy_2d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<64x64xf32, #blocked>
    layout.store %v, %tb : tensor<64x64xf32, #blocked>, !T
  }
  func.return
}
