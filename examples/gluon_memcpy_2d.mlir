// Gluon tutorial (seed 003), `test_memcpy_2d` as the tutorial runs it: a 100x2000
// row-major float32 tensor copied in blocks of XBLOCK x YBLOCK = 128 x 256 by 4 warps
// with BlockedLayout([1,1], [1,32], [1,4], [1,0]) (a warp covers 32 consecutive elements
// of a row: coalesced 128-byte rows), on the tutorial's grid (cdiv(100, 128),
// cdiv(2000, 256)) = (1, 8). The blocks do not divide the tensor: each tile is `masked`
// (Gluon's `mask = (indices_x < xnumel) & (indices_y < ynumel)`), so the loads and stores
// past row 100 or column 2000 do nothing. The tutorial's kernel computes pointers
// (`in_ptr + in_offsets`); this one takes the same tile of a view.
//
//   tilec examples/gluon_memcpy_2d.mlir --run cpu
//   tilec examples/gluon_memcpy_2d.mlir --run gpu --check
#blocked = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(100,2000):(2000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(128,256):(2000,1)>, gmem, masked>
func.func @memcpy_2d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  layout.launch grid(%c1, %c8, %c1) threads(128) {
  ^bb0(%pid_x: index, %pid_y: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%pid_x, %pid_y] {tile = array<i64: 128, 256>} : !G
    %tb = layout.tile %b[%pid_x, %pid_y] {tile = array<i64: 128, 256>} : !G
    %v = layout.load %ta : !T -> tensor<128x256xf32, #blocked>
    layout.store %v, %tb : tensor<128x256xf32, #blocked>, !T
  }
  func.return
}
