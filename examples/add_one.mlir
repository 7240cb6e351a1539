// Add one to every element, the way a Gluon kernel does it (not a seed example: seed
// 000's first kernel, element by element as Mojo writes it, is
// mojo_initialize_tensor.mlir). A 64x64 float32 tensor into a separate output: each
// block of 4 warps loads a 32x32 tile into registers with a blocked layout (16-byte rows
// per thread), adds 1.0 with plain `arith` on the distributed value, and stores it.
//
//   tilec examples/add_one.mlir --run cpu
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(64,1)>, gmem>
func.func @add_one(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<32x32xf32, #b>
    %one = arith.constant 1.000000e+00 : f32
    %ones = layout.splat %one : f32 -> tensor<32x32xf32, #b>
    %w = arith.addf %v, %ones : tensor<32x32xf32, #b>
    layout.store %w, %tb : tensor<32x32xf32, #b>, !T
  }
  func.return
}
