// Verifier errors of layout.scan_region.
// RUN: tilec %s --split-input-file --verify-diagnostics

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @result_type(%x: tensor<16x32xf32, #b>) {
  // expected-error @+1 {{each result has its operand's type}}
  %m = layout.scan_region %x {axis = 1 : i64} : tensor<16x32xf32, #b> -> tensor<16x32xf16, #b> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    layout.yield %s : f32
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @axis(%x: tensor<16x32xf32, #b>) {
  // expected-error @+1 {{axis 2 out of range}}
  %m = layout.scan_region %x {axis = 2 : i64} : tensor<16x32xf32, #b> -> tensor<16x32xf32, #b> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    layout.yield %s : f32
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @layouts(%x: tensor<16x32xf32, #b>, %i: tensor<16x32xi32, #c>) {
  // expected-error @+1 {{the operands must have one shape and distributed layout}}
  %m, %j = layout.scan_region %x, %i {axis = 1 : i64} : tensor<16x32xf32, #b>, tensor<16x32xi32, #c> -> tensor<16x32xf32, #b>, tensor<16x32xi32, #c> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    layout.yield %a, %ai : f32, i32
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @combiner_args(%x: tensor<16x32xf32, #b>) {
  // expected-error @+1 {{the combiner takes two elements of each operand: (f32, f32)}}
  %m = layout.scan_region %x {axis = 1 : i64} : tensor<16x32xf32, #b> -> tensor<16x32xf32, #b> {
  ^bb0(%a: f32):
    layout.yield %a : f32
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @combiner_yield(%x: tensor<16x32xf32, #b>) {
  // expected-error @+1 {{the combiner must end with layout.yield of (f32)}}
  %m = layout.scan_region %x {axis = 1 : i64} : tensor<16x32xf32, #b> -> tensor<16x32xf32, #b> {
  ^bb0(%a: f32, %b: f32):
    %i = arith.constant 0 : i32
    layout.yield %i : i32
  }
  func.return
}
