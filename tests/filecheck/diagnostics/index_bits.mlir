// The index-width promise `tilec.index_bits` (support/index_width.py) takes the
// integers 32 and 64 only: anything else is a located error, exit 1.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file -p default 2>&1 | filecheck %s

// CHECK: index_bits.mlir:[[# @LINE + 2]]:1: error: 'func.func': 'tilec.index_bits' must be the integer 32 or 64, got 16 : i64
// expected-error @+1 {{'tilec.index_bits' must be the integer 32 or 64, got 16 : i64}}
func.func @sixteen(%n: index) attributes {tilec.index_bits = 16 : i64} {
  func.return
}

// -----

// expected-error @+1 {{'tilec.index_bits' must be the integer 32 or 64, got "32"}}
func.func @text(%n: index) attributes {tilec.index_bits = "32"} {
  func.return
}
