// A conversion that must go through shared memory (the threads of a block exchange
// values) needs the block of a layout.launch: outside one it is a located error, not
// an unlocated "pass failed" (found by the fuzzer).
// RUN: not tilec %s -p lower-convert-layout 2>&1 | filecheck %s
// RUN: not tilec %s -p default 2>&1 | filecheck %s

#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @no_block(%v: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
  // CHECK: outside_launch.mlir:[[# @LINE + 1]]:3: error: 'layout.convert_layout': a conversion through shared memory must be inside a layout.launch
  %w = layout.convert_layout %v : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
  func.return %w : tensor<32x32xf32, #b>
}
