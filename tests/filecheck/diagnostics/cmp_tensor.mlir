// A comparison of distributed tensors written with `arith` (issue 33): xDSL's short form
// typed the result as one i1 and the program went on; the generic form said only
// "expected i1". Both now say which `layout` op compares tensors.
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// (the first error ends that run; --verify-diagnostics checks every message)
// RUN: tilec %s --split-input-file --verify-diagnostics

// CHECK: cmp_tensor.mlir:[[# @LINE + 4]]:3: error: 'arith.cmpi' takes scalars, not tensors; on a distributed tensor use 'layout.cmpi'
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @cmpi(%x: tensor<32xi32, #b>) {
  // expected-error @+1 {{'arith.cmpi' takes scalars, not tensors; on a distributed tensor use 'layout.cmpi'}}
  %p = arith.cmpi slt, %x, %x : tensor<32xi32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @cmpf(%x: tensor<32xf32, #b>) {
  // expected-error @+1 {{'arith.cmpf' takes scalars, not tensors; on a distributed tensor use 'layout.cmpf'}}
  %p = arith.cmpf olt, %x, %x : tensor<32xf32, #b>
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @cmpi_generic(%x: tensor<32xi32, #b>) {
  // expected-error @+1 {{result 'result' at position 0 does not verify: expected i1, got tensor<32xi1, #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>; it takes scalars, not tensors; on a distributed tensor use 'layout.cmpi'}}
  %p = "arith.cmpi"(%x, %x) {predicate = 2 : i64} : (tensor<32xi32, #b>, tensor<32xi32, #b>) -> tensor<32xi1, #b>
  func.return
}
