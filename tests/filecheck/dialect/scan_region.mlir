// Round trip of layout.scan_region (a scan with a combiner region over several
// tensors), custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @running_argmax(
// CHECK: %m, %i = layout.scan_region %x, %idx {axis = 1 : i64, reverse = true} : tensor<16x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<16x32xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<16x32xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>> {
// CHECK-NEXT: ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
// CHECK-NEXT:   %gt = arith.cmpf ogt, %b, %a : f32
// CHECK-NEXT:   %v = arith.select %gt, %b, %a : f32
// CHECK-NEXT:   %j = arith.select %gt, %bi, %ai : i32
// CHECK-NEXT:   layout.yield %v, %j : f32, i32
// CHECK-NEXT: }
func.func @running_argmax(%x: tensor<16x32xf32, #b>, %idx: tensor<16x32xi32, #b>) {
  %m, %i = layout.scan_region %x, %idx {axis = 1 : i64, reverse = true} : tensor<16x32xf32, #b>, tensor<16x32xi32, #b> -> tensor<16x32xf32, #b>, tensor<16x32xi32, #b> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %v = arith.select %gt, %b, %a : f32
    %j = arith.select %gt, %bi, %ai : i32
    layout.yield %v, %j : f32, i32
  }
  func.return
}
