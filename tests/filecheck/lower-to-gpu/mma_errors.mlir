// layout.mma that mma.sync cannot do: a located error, exit status 1.
// RUN: not tilec %s -p lower-to-gpu --split-input-file 2>&1 | filecheck %s
// RUN: tilec %s -p lower-to-gpu --split-input-file --verify-diagnostics

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
// Registers live inside one kernel: operands that come from the host function are refused
// at the op that uses them (they crashed the lowering before).
// CHECK: mma_errors.mlir:[[# @LINE + 6]]:5: error: 'layout.mma': a distributed tensor (tensor<16x16xf32, {{.*}}) cannot come into a launch from its host function
func.func @from_host(%a: tensor<16x16xf32, #a>, %b: tensor<16x8xf32, #b>, %c: tensor<16x8xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{a distributed tensor}}
    %d = layout.mma %a, %b, %c : tensor<16x16xf32, #a>, tensor<16x8xf32, #b>, tensor<16x8xf32, #mma>
  }
  func.return
}
// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @short_k(%a: tensor<16x8xbf16, #a>, %b: tensor<8x8xbf16, #b>, %c: tensor<16x8xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{lower-to-gpu lowers layout.mma to mma.sync with M, N and K multiples of 16, 8 and 16 (got 16, 8 and 8)}}
    %d = layout.mma %a, %b, %c : tensor<16x8xbf16, #a>, tensor<8x8xbf16, #b>, tensor<16x8xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]>, kWidth = 2>
func.func @wgmma(%a: tensor<64x16xbf16, #a>, %b: tensor<16x8xbf16, #b>, %c: tensor<64x8xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{a version-3 (wgmma) accumulator of layout.mma needs instrShape [64, N, 16]}}
    %d = layout.mma %a, %b, %c : tensor<64x16xbf16, #a>, tensor<16x8xbf16, #b>, tensor<64x8xf32, #mma>
  }
  func.return
}
