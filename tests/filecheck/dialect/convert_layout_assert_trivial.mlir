// Gluon's `convert_layout(..., assert_trivial=True)`: the verifier decides from the
// linear layouts whether a conversion moves data between threads (issue 18: it was
// accepted and ignored, and compiled to a shared-memory round trip).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s

// A conversion that only renames registers (the same blocked layout spelled as a
// linear layout) is trivial.
// CHECK: layout.convert_layout %v {assert_trivial = true}
#a = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#l = #layout.linear<{register = [[0, 1]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [], block = []}>
func.func @registers(%v: tensor<32x2xf32, #a>) -> tensor<32x2xf32, #l> {
  %w = layout.convert_layout %v {assert_trivial = true} : tensor<32x2xf32, #a> -> tensor<32x2xf32, #l>
  func.return %w : tensor<32x2xf32, #l>
}

// -----

#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @shuffle(%v: tensor<32x2xf32, #a>) -> tensor<32x2xf32, #b> {
  // expected-error @+1 {{assert_trivial: converting #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}> to #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}> is not register-only: lanes of a warp exchange elements (warp shuffles)}}
  %w = layout.convert_layout %v {assert_trivial = true} : tensor<32x2xf32, #a> -> tensor<32x2xf32, #b>
  func.return %w : tensor<32x2xf32, #b>
}

// -----

#a = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @shared(%v: tensor<32x16xf32, #a>) -> tensor<32x16xf32, #b> {
  // expected-error @+1 {{is not register-only: elements cross warps (a shared-memory round trip)}}
  %w = layout.convert_layout %v {assert_trivial = true} : tensor<32x16xf32, #a> -> tensor<32x16xf32, #b>
  func.return %w : tensor<32x16xf32, #b>
}
