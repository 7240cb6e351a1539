// The `lowering` property of layout.convert_layout: what lower-convert-layout decided
// (register or shuffle), which lower-to-gpu follows. The verifier checks that the
// conversion's kind (from the linear layouts) can be lowered that way.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s
// RUN: not tilec %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// (tilec stops at the first error: the last case is checked by --verify-diagnostics)

// CHECK-LABEL: func.func @shuffle_ok
// CHECK: layout.convert_layout %v {lowering = "shuffle"}
#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @shuffle_ok(%v: tensor<32x2xf32, #a>) -> tensor<32x2xf32, #b> {
  %w = layout.convert_layout %v {lowering = "shuffle"} : tensor<32x2xf32, #a> -> tensor<32x2xf32, #b>
  func.return %w : tensor<32x2xf32, #b>
}

// -----

#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @register_for_a_shuffle(%v: tensor<32x2xf32, #a>) -> tensor<32x2xf32, #b> {
  // ERR: error: 'layout.convert_layout': a 'warp_shuffle' conversion cannot be lowered as 'register' (it can: identity, register)
  // expected-error @+1 {{a 'warp_shuffle' conversion cannot be lowered as 'register' (it can: identity, register)}}
  %w = layout.convert_layout %v {lowering = "register"} : tensor<32x2xf32, #a> -> tensor<32x2xf32, #b>
  func.return %w : tensor<32x2xf32, #b>
}

// -----

#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @unknown(%v: tensor<32x2xf32, #a>) -> tensor<32x2xf32, #a> {
  // expected-error @+1 {{lowering must be one of register, shuffle, got 'smem'}}
  %w = layout.convert_layout %v {lowering = "smem"} : tensor<32x2xf32, #a> -> tensor<32x2xf32, #a>
  func.return %w : tensor<32x2xf32, #a>
}
