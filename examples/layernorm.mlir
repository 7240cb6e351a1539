// Layer norm (forward), written in tilec: y = (x - mean) * rsqrt(var + 1e-5) * weight + bias
// along each row of 1024 floats (biased variance, as torch.nn.functional.layer_norm).
// One row per block of 2 warps; two row reductions (the sum, then the sum of squares
// of x - mean); weight and bias are loaded in the slice layout of the rows' layout and
// broadcast over the rows.
//
//   tilec examples/layernorm.mlir --run cpu
//   tilec examples/layernorm.mlir --run gpu --check   (within the ulp bound of math.rsqrt)
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #b}>
!G = !layout.tensor<f32, #layout.cute<(64,1024):(1024,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem>
func.func @layer_norm(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %weight: !layout.ptr<f32, align 16>, %bias: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %wv = layout.view %weight : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024):(1)>, gmem>
  %bv = layout.view %bias : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024):(1)>, gmem>
  %cg = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%cg, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x1024xf32, #b>
    %sum = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #b> -> tensor<1xf32, #r>
    %rn = arith.constant 9.765625e-04 : f32
    %rns = layout.splat %rn : f32 -> tensor<1xf32, #r>
    %mean = arith.mulf %sum, %rns : tensor<1xf32, #r>
    %meanb1 = layout.expand_dims %mean {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #b>
    %meanb = layout.broadcast %meanb1 : tensor<1x1xf32, #b> -> tensor<1x1024xf32, #b>
    %xc = arith.subf %x, %meanb : tensor<1x1024xf32, #b>
    %sq = arith.mulf %xc, %xc : tensor<1x1024xf32, #b>
    %ss = layout.reduce %sq {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #b> -> tensor<1xf32, #r>
    %var = arith.mulf %ss, %rns : tensor<1xf32, #r>
    %eps = arith.constant 1.000000e-05 : f32
    %epss = layout.splat %eps : f32 -> tensor<1xf32, #r>
    %ve = arith.addf %var, %epss : tensor<1xf32, #r>
    %rstd = math.rsqrt %ve : tensor<1xf32, #r>
    %rstdb1 = layout.expand_dims %rstd {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #b>
    %rstdb = layout.broadcast %rstdb1 : tensor<1x1xf32, #b> -> tensor<1x1024xf32, #b>
    %wt = layout.load %wv : !layout.tensor<f32, #layout.cute<(1024):(1)>, gmem> -> tensor<1024xf32, #layout.slice<{dim = 0, parent = #b}>>
    %bt = layout.load %bv : !layout.tensor<f32, #layout.cute<(1024):(1)>, gmem> -> tensor<1024xf32, #layout.slice<{dim = 0, parent = #b}>>
    %wt1 = layout.expand_dims %wt {axis = 0 : i64} : tensor<1024xf32, #layout.slice<{dim = 0, parent = #b}>> -> tensor<1x1024xf32, #b>
    %bt1 = layout.expand_dims %bt {axis = 0 : i64} : tensor<1024xf32, #layout.slice<{dim = 0, parent = #b}>> -> tensor<1x1024xf32, #b>
    %wb = layout.broadcast %wt1 : tensor<1x1024xf32, #b> -> tensor<1x1024xf32, #b>
    %bb = layout.broadcast %bt1 : tensor<1x1024xf32, #b> -> tensor<1x1024xf32, #b>
    %xn = arith.mulf %xc, %rstdb : tensor<1x1024xf32, #b>
    %xw = arith.mulf %xn, %wb : tensor<1x1024xf32, #b>
    %y = arith.addf %xw, %bb : tensor<1x1024xf32, #b>
    layout.store %y, %tb : tensor<1x1024xf32, #b>, !T
  }
  func.return
}
