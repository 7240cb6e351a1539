// Round trip of layout.funnel_shift (dialects/layout_funnel.py): rank 2 and 1, shifts
// of i32 and i64, words to bytes (`-> type`); custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

#l = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
#v = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// CHECK-LABEL: func.func @rows(
// CHECK: %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x16xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<256xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
func.func @rows(%lo: tensor<256x16xi8, #l>, %hi: tensor<256x16xi8, #l>, %sh: tensor<256xi32, #r>) -> tensor<256x16xi8, #l> {
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x16xi8, #l>, tensor<256xi32, #r>
  func.return %out : tensor<256x16xi8, #l>
}

// CHECK-LABEL: func.func @one_row(
// CHECK: %out = layout.funnel_shift %lo, %hi, %sh : tensor<4xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, tensor<i64, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>
func.func @one_row(%lo: tensor<4xf32, #v>, %hi: tensor<4xf32, #v>, %sh: tensor<i64, #layout.slice<{dim = 0, parent = #v}>>) -> tensor<4xf32, #v> {
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<4xf32, #v>, tensor<i64, #layout.slice<{dim = 0, parent = #v}>>
  func.return %out : tensor<4xf32, #v>
}

#w = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @words_to_bytes(
// CHECK: %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x4xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<256xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<256x16xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @words_to_bytes(%lo: tensor<256x4xi32, #w>, %hi: tensor<256x4xi32, #w>, %sh: tensor<256xi32, #r>) -> tensor<256x16xi8, #l> {
  %out = layout.funnel_shift %lo, %hi, %sh : tensor<256x4xi32, #w>, tensor<256xi32, #r> -> tensor<256x16xi8, #l>
  func.return %out : tensor<256x16xi8, #l>
}
