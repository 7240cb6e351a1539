// Mojo LayoutTensor guide (seed 000, "Vectorizing tensors" and "Partitioning a tensor
// across threads"; the TileTensor guide, seed 004, has the same sections): a 128x128
// float32 tensor is cut with `tile[16, 16](bx, by)`, the tile is viewed as vectors with
// `vectorize[1, 4]()` and split over one warp with `distribute[row_major(8, 4)](lane)`:
//
//   tile               (16,16):(128,1)                      16x16 elements
//   vectorize[1,4]     (16,4):(128,4)   vec (1,4):(128,1)   16x4 vectors of 1x4
//   distribute 8x4     (2,1):(1024,16)  vec (1,4):(128,1)   2x1 vectors per thread
//
// The vectorized tile is 16x4 (as seed 004 says; seed 000's "4x16" is transposed), and
// each of the 32 threads gets rows lane/4 and lane/4 + 8, vector lane%4 of both: see
// docs/seeds.md, "Where the seeds disagree". Each thread then copies its two 16-byte
// vectors from src to dst.
//
//   tilec examples/mojo_tile_vectorize_distribute.mlir --run cpu
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(128,1)>, gmem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(128,4)>, gmem, vec #layout.cute<(1,4):(128,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(1024,16)>, gmem, vec #layout.cute<(1,4):(128,1)>>
func.func @tile_vectorize_distribute(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %lane: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !T -> !TV
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !T -> !TV
    %fa = layout.distribute %va, %lane {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %fb = layout.distribute %vb, %lane {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    layout.copy %fa, %fb : !TF, !TF
  }
  func.return
}
