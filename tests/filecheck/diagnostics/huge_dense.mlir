// A splat `dense<...>` of a huge tensor type is refused where it is parsed: xDSL would
// materialise one Python value per element (found by the fuzzer: MemoryError, exit 2).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s

#c = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @huge_splat() -> tensor<1099511627776x32xf32, #c> {
  // CHECK: huge_dense.mlir:[[# @LINE + 2]]:36: error: dense literal of 35184372088832 elements: tilec holds at most 2^24 elements in a dense attribute
  // expected-error @+1 {{dense literal of 35184372088832 elements: tilec holds at most 2^24 elements in a dense attribute}}
  %z = arith.constant dense<0.0> : tensor<1099511627776x32xf32, #c>
  func.return %z : tensor<1099511627776x32xf32, #c>
}

// -----

// Hex splats too.
func.func @huge_hex_splat() -> tensor<4294967296xi32> {
  // expected-error @+1 {{dense literal of 4294967296 elements}}
  %z = arith.constant dense<"0x00000000"> : tensor<4294967296xi32>
  func.return %z : tensor<4294967296xi32>
}
