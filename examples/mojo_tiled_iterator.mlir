// Mojo's LayoutTensor guide (seed 000), "Tiling a LayoutTensor", as the seed writes it:
//
//   for i in range(num_row_tiles):
//       var iter = tensor.tiled_iterator[tile_size, tile_size, axis=1](i, 0)
//       for _ in range(num_col_tiles):
//           tile = iter[]
//           # ... do something with the tile
//           iter += 1
//
// on a 64x96 row-major float32 tensor with tile_size = 32 (2 row tiles, 3 column
// tiles). The outer loop is the grid (block i takes row tile i); "something" is a copy
// of the tile into the same tile of the output, which a second iterator walks in step.
// The iterators are carried through the loop (`iter += 1` is layout.iter_next); the
// expand-iterators pass turns them into tile positions.
//
//   tilec examples/mojo_tiled_iterator.mlir --run cpu
//   tilec examples/mojo_tiled_iterator.mlir -p expand-iterators
!G = !layout.tensor<f32, #layout.cute<(64,96):(96,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(96,1)>, gmem>
!I = !layout.iter<!T>
func.func @tiled_iterator(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %tensor = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %out = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %num_row_tiles = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%num_row_tiles, %c1, %c1) threads(128) {
  ^bb0(%i: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %num_col_tiles = arith.constant 3 : index
    %iter = layout.tiled_iterator %tensor[%i, %c0] {tile = array<i64: 32, 32>, axis = 1 : i64} : !G
    %oiter = layout.tiled_iterator %out[%i, %c0] {tile = array<i64: 32, 32>, axis = 1 : i64} : !G
    %r:2 = scf.for %j = %c0 to %num_col_tiles step %c1 iter_args(%it = %iter, %ot = %oiter) -> (!I, !I) {
      %tile = layout.iter_get %it : !I
      %otile = layout.iter_get %ot : !I
      layout.copy %tile, %otile : !T, !T
      %next = layout.iter_next %it : !I
      %onext = layout.iter_next %ot : !I
      scf.yield %next, %onext : !I, !I
    }
  }
  func.return
}
