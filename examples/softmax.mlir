// Row softmax, written in tilec (docs/tutorial.md, "From copy to softmax"): each block
// takes one row of 1024 floats, spread over 2 warps with 16 bytes per thread per access;
// two row reductions (max, then the sum of exp(x - max)) are butterfly shuffles within the
// warp and one round through shared memory across the two warps.
//
//   tilec examples/softmax.mlir --run cpu
//   tilec examples/softmax.mlir --run gpu --check   (within the ulp bound of math.exp)
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #b}>
!G = !layout.tensor<f32, #layout.cute<(64,1024):(1024,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem>
func.func @softmax(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
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
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #b> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #b>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #b> -> tensor<1x1024xf32, #b>
    %d = arith.subf %x, %mb : tensor<1x1024xf32, #b>
    %e = math.exp %d : tensor<1x1024xf32, #b>
    %s = layout.reduce %e {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #b> -> tensor<1xf32, #r>
    %one = arith.constant 1.000000e+00 : f32
    %ones = layout.splat %one : f32 -> tensor<1xf32, #r>
    %inv = arith.divf %ones, %s : tensor<1xf32, #r>
    %ib1 = layout.expand_dims %inv {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #b>
    %ib = layout.broadcast %ib1 : tensor<1x1xf32, #b> -> tensor<1x1024xf32, #b>
    %y = arith.mulf %e, %ib : tensor<1x1024xf32, #b>
    layout.store %y, %tb : tensor<1x1024xf32, #b>, !T
  }
  func.return
}
