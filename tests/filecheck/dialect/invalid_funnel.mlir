// Verifier errors of layout.funnel_shift (dialects/layout_funnel.py).
// RUN: tilec %s --split-input-file --verify-diagnostics

#l = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
func.func @hi_type(%lo: tensor<256x16xi8, #l>, %hi: tensor<256x16xi16, #l>, %sh: tensor<256xi32, #r>) {
  // expected-error @+1 {{operand is used with type}}
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x16xi8, #l>, tensor<256xi32, #r>
  func.return
}

// -----

#l = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 0, parent = #l}>
func.func @shift_layout(%lo: tensor<256x16xi8, #l>, %hi: tensor<256x16xi8, #l>, %sh: tensor<16xi32, #r>) {
  // expected-error @+1 {{the shift must be a tensor of integers of shape [256] in #layout.slice<{dim = 1, parent = <the result's layout>}>}}
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x16xi8, #l>, tensor<16xi32, #r>
  func.return
}

// -----

#l = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
func.func @shift_float(%lo: tensor<256x16xi8, #l>, %hi: tensor<256x16xi8, #l>, %sh: tensor<256xf32, #r>) {
  // expected-error @+1 {{the shift must be a tensor of integers}}
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x16xi8, #l>, tensor<256xf32, #r>
  func.return
}

// -----

#l = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
func.func @lanes_along_rows(%lo: tensor<32x16xi8, #l>, %hi: tensor<32x16xi8, #l>, %sh: tensor<32xi32, #r>) {
  // expected-error @+1 {{the last dimension must lie in each thread's registers, but a lane basis moves along it}}
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<32x16xi8, #l>, tensor<32xi32, #r>
  func.return
}

// -----

#w = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#l = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
func.func @row_bytes(%lo: tensor<128x4xi32, #w>, %hi: tensor<128x4xi32, #w>, %sh: tensor<128xi32, #r>) {
  // expected-error @+1 {{a row of the result must hold as many bytes as a row of the operands}}
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<128x4xi32, #w>, tensor<128xi32, #r> -> tensor<128x8xi8, #l>
  func.return
}

// -----

#w = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#l = #layout.blocked<{sizePerThread = [2, 16], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
func.func @rows_elsewhere(%lo: tensor<128x4xi32, #w>, %hi: tensor<128x4xi32, #w>, %sh: tensor<128xi32, #r>) {
  // expected-error @+1 {{the result's rows must be held as the operands' rows are}}
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<128x4xi32, #w>, tensor<128xi32, #r> -> tensor<128x16xi8, #l>
  func.return
}
