// CuTe Tensor guide (seed 001, "Copy ... an arbitrary subtile"): a 24x16 column-major
// tensor, `make_tensor(ptr, make_shape(24,16))` = (24,16):(1,24), divided by the
// strided 8x4 tiler `Tile<Layout<_8,_3>, Layout<_4,_2>>` (every 3rd row, every 2nd
// column), and each tile copied through registers:
//
//   Tensor gmem_tiled = zipped_divide(gmem, tiler);           // ((_8,_4),Rest)
//   Tensor rmem = make_tensor_like(gmem_tiled(_, 0));         // ((_8,_4))
//   copy(gmem_tiled(_, j), rmem); ... copy(rmem, out_tiled(_, j));
//
// The tiler is written by mode as the guide writes it, `[#layout.cute<8:3>,
// #layout.cute<4:2>]`: the tile is (8,4):(3,48) (column 2j is coordinate 24*2j) and the
// rest ((3,(2,2)) tiles, 12 in all) keeps CuTe's nesting. (The same tiles come from the
// one layout (8,4):(3,48) over the tensor's coordinates; tests/unit/test_seed_examples.py
// checks that the two agree element by element.) `make_tensor_like` of the tile is the compact (8,4):(1,8) in
// registers (`layout.alloc` in rmem). Block j, one thread, moves tile j:
// global -> register fragment -> global; the guide's `do_something(rmem)` is left out.
//
//   tilec examples/cute_tiled_copy_registers.mlir --run cpu
!G = !layout.tensor<f32, #layout.cute<(24,16):(1,24)>, gmem>
!Z = !layout.tensor<f32, #layout.cute<((8,4),(3,(2,2))):((3,48),(1,(24,192)))>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,4):(3,48)>, gmem>
!R = !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, rmem>
func.func @tiled_copy_registers(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %za = layout.divide %a {kind = "zipped", tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : !G -> !Z
  %zb = layout.divide %b {kind = "zipped", tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : !G -> !Z
  %c12 = arith.constant 12 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c12, %c1, %c1) threads(1) {
  ^bb0(%j: index, %by: index, %bz: index, %tid: index):
    %ta = layout.slice %za[_, %j] : !Z -> !T
    %tb = layout.slice %zb[_, %j] : !Z -> !T
    %r = layout.alloc : !R
    layout.copy %ta, %r : !T, !R
    layout.copy %r, %tb : !R, !T
  }
  func.return
}
