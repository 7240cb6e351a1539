// CuTe Tensor guide (seed 001, "Partitioning a Tensor"): the 8x24 tensor
// `make_tensor(ptr, make_shape(8,24))` (column-major, (8,24):(1,8)) tiled by 4x8,
// `zipped_divide(A, Shape<_4,_8>{})` = ((4,8),(2,3)):((1,8),(4,64)), partitioned the
// guide's three ways. dst holds two copies of src, one written by each launch:
//
// 1. Outer partition, one block of 32 threads: thread t takes element t of every 4x8
//    tile, `tiled_a(threadIdx.x, _)`, shape (2,3). src is read through
//    `local_partition(A, (4,8):(1,4), t)` (`layout.distribute`; the thread layout is
//    the column-major 4x8 that `threadIdx.x` indexes the tile mode with), dst through
//    the slice of the zipped divide: both name the same six elements.
// 2. Inner partition + thread-value partition, 2x3 blocks of 8 threads: block (bx, by)
//    takes its 4x8 tile, `local_tile(A, (4,8), (bx,by))` (`layout.tile`) for src and
//    `tiled_a(_, (bx,by))` (`layout.slice`) for dst, and thread t takes the 4 values
//    `composition(tile, tv)(t, _)` of the guide's TV layout
//    ((2,4),(2,2)):((8,1),(4,16)) (`layout.partition`).
//
// tests/unit/test_seed_examples.py lists which elements each thread gets.
//
//   tilec examples/cute_local_tile_partition.mlir --run cpu
!A = !layout.tensor<f32, #layout.cute<(8,24):(1,8)>, gmem>
!D = !layout.tensor<f32, #layout.cute<(8,24,2):(1,8,192)>, gmem>
!Z = !layout.tensor<f32, #layout.cute<((4,8),(2,3)):((1,8),(4,64))>, gmem>
!F = !layout.tensor<f32, #layout.cute<(2,3):(4,64)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(4,8):(1,8)>, gmem>
!Fs = !layout.tensor<f32, #layout.cute<((2,3)):((4,64))>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<((4,8)):((1,8))>, gmem>
!V = !layout.tensor<f32, #layout.cute<(2,2):(8,32)>, gmem>
func.func @local_tile_partition(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %d = layout.view %dst : !layout.ptr<f32> -> !D
  %b0 = layout.slice %d[_, _, 0] : !D -> !A
  %b1 = layout.slice %d[_, _, 1] : !D -> !A
  %z0 = layout.divide %b0 {kind = "zipped", tiler = array<i64: 4, 8>} : !A -> !Z
  %z1 = layout.divide %b1 {kind = "zipped", tiler = array<i64: 4, 8>} : !A -> !Z
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  // 1. outer partition: thread t gets element t of each of the 2x3 tiles
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %fa = layout.distribute %a, %t {threads = #layout.cute<(4,8):(1,4)>} : !A -> !F
    %fb = layout.slice %z0[%t, _] : !Z -> !Fs
    layout.copy %fa, %fb : !F, !Fs
  }
  // 2. inner partition (one 4x8 tile per block), then 4 values per thread
  layout.launch grid(%c2, %c3, %c1) threads(8) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 4, 8>} : !A -> !T
    %by2 = arith.muli %by, %c2 : index
    %blk = arith.addi %bx, %by2 : index
    %tb = layout.slice %z1[_, %blk] : !Z -> !Ts
    %va = layout.partition %ta, %t {tv = #layout.cute<((2,4),(2,2)):((8,1),(4,16))>} : !T -> !V
    %vb = layout.partition %tb, %t {tv = #layout.cute<((2,4),(2,2)):((8,1),(4,16))>} : !Ts -> !V
    layout.copy %va, %vb : !V, !V
  }
  func.return
}
