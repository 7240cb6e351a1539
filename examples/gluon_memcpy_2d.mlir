// Gluon tutorial (seed 003), 2D memcpy: the layout and blocks the tutorial benchmarks,
// BlockedLayout([1,1], [1,32], [1,4], [1,0]) with XBLOCK=1, YBLOCK=2048 and 4 warps (a
// program copies one row; a warp covers 32 consecutive elements of it: coalesced
// 128-byte accesses), on the shape of its `test_memcpy_2d`, 100x2000 row-major float32,
// with the tutorial's grid (cdiv(100, 1), cdiv(2000, 2048)) = (100, 1). The block does
// not divide the row: each tile is `masked` (Gluon's `mask = (indices_x < xnumel) &
// (indices_y < ynumel)`), so the accesses past column 2000 do nothing. The tutorial's kernel computes pointers
// (`in_ptr + in_offsets`); this one takes the same tile of a view.
//
//   tilec examples/gluon_memcpy_2d.mlir --run cpu
//   tilec examples/gluon_memcpy_2d.mlir --run gpu --check
#blocked = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(100,2000):(2000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,2048):(2000,1)>, gmem, masked>
func.func @memcpy_2d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  layout.launch grid(%c100, %c1, %c1) threads(128) {
  ^bb0(%pid_x: index, %pid_y: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%pid_x, %pid_y] {tile = array<i64: 1, 2048>} : !G
    %tb = layout.tile %b[%pid_x, %pid_y] {tile = array<i64: 1, 2048>} : !G
    %v = layout.load %ta : !T -> tensor<1x2048xf32, #blocked>
    layout.store %v, %tb : tensor<1x2048xf32, #blocked>, !T
  }
  func.return
}
