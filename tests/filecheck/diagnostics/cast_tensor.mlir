// An arith cast of a tensor (issue 18): it said only "should be of base attribute
// integer_type"; now the op, the type expected and the type written.
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: cast_tensor.mlir:[[# @LINE + 3]]:3: error: 'arith.sitofp' takes an integer type (i1, i8, i16, i32, i64), got tensor<32x32xi32, #layout.blocked<{{.*}}>>: 'arith.sitofp' (xDSL's arith cast) takes scalars, not tensors; on a distributed tensor use 'layout.sitofp'
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @cast_tensor(%v: tensor<32x32xi32, #b>) {
  %c = arith.sitofp %v : tensor<32x32xi32, #b> to tensor<32x32xf32, #b>
  func.return
}
