// Gluon tutorial (seed 003, 2D memcpy, "Let's check the throughput when the input
// tensor is transposed"): `input.T` and `output.T` of a 512x256 row-major float32
// tensor are copied with the layout chosen for untransposed tensors,
// BlockedLayout([1,1], [1,32], [1,4], [1,0]), XBLOCK=1 and YBLOCK the whole row (512
// here). The views are 256x512 with strides (1,256): a program's row is a column in
// memory, so the 32 threads of a warp touch 32 addresses 1 KiB apart and nothing
// coalesces (the tutorial measures 0.774 TB/s instead of 6.26). The result is still
// an exact copy (dst = src in memory). The tutorial's fix swaps the blocks and the
// layout, BlockedLayout([1,1], [32,1], [4,1], [0,1]) with XBLOCK=2048, YBLOCK=1;
// gluon_memcpy_2d.mlir is the untransposed copy with its right layout.
//
//   tilec examples/gluon_memcpy_2d_wrong_layout.mlir --run cpu
#wrong = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(256,512):(1,256)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,512):(1,256)>, gmem>
func.func @memcpy_2d_wrong_layout(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c256, %c1, %c1) threads(128) {
  ^bb0(%px: index, %py: index, %pz: index, %tid: index):
    %ta = layout.tile %a[%px, %py] {tile = array<i64: 1, 512>} : !G -> !T
    %tb = layout.tile %b[%px, %py] {tile = array<i64: 1, 512>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<1x512xf32, #wrong>
    layout.store %v, %tb : tensor<1x512xf32, #wrong>, !T
  }
  func.return
}
