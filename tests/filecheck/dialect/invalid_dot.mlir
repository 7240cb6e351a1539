// Invalid layout.dot: outside a launch, shapes, element types, threads, a view
// operand; each a located error saying why.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s --check-prefix=LOC
// LOC: invalid_dot.mlir:10:3: error: 'layout.dot': layout.dot must be inside a layout.launch

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @outside(%a: tensor<32x16xf32, #blk>, %b: tensor<16x64xf32, #blk>, %c: tensor<32x64xf32, #blk>) {
  // expected-error @+1 {{layout.dot must be inside a layout.launch}}
  %d = layout.dot %a, %b, %c : tensor<32x16xf32, #blk>, tensor<16x64xf32, #blk>, tensor<32x64xf32, #blk>
  func.return
}

// -----

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @shapes(%a: tensor<32x16xf32, #blk>, %b: tensor<32x64xf32, #blk>, %c: tensor<32x64xf32, #blk>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.dot shapes do not multiply: a is 32x16, b is 32x64, acc is 32x64 (expected MxK, KxN and MxN)}}
    %d = layout.dot %a, %b, %c : tensor<32x16xf32, #blk>, tensor<32x64xf32, #blk>, tensor<32x64xf32, #blk>
  }
  func.return
}

// -----

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @types(%a: tensor<32x16xbf16, #blk>, %b: tensor<16x64xf16, #blk>, %c: tensor<32x64xf32, #blk>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.dot takes f16 x f16, bf16 x bf16 or f32 x f32 into f32; got bf16 x f16 into f32}}
    %d = layout.dot %a, %b, %c : tensor<32x16xbf16, #blk>, tensor<16x64xf16, #blk>, tensor<32x64xf32, #blk>
  }
  func.return
}

// -----

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @acc_type(%a: tensor<32x16xf16, #blk>, %b: tensor<16x64xf16, #blk>, %c: tensor<32x64xf16, #blk>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.dot takes f16 x f16, bf16 x bf16 or f32 x f32 into f32; got f16 x f16 into f16}}
    %d = layout.dot %a, %b, %c : tensor<32x16xf16, #blk>, tensor<16x64xf16, #blk>, tensor<32x64xf16, #blk>
  }
  func.return
}

// -----

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blk2 = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>
func.func @threads(%a: tensor<32x16xf32, #blk2>, %b: tensor<16x64xf32, #blk>, %c: tensor<32x64xf32, #blk>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.dot operand a: layout #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}> spans 64 threads but the block has 128}}
    %d = layout.dot %a, %b, %c : tensor<32x16xf32, #blk2>, tensor<16x64xf32, #blk>, tensor<32x64xf32, #blk>
  }
  func.return
}

// -----

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!S = !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem>
func.func @view(%b: tensor<16x64xf32, #blk>, %c: tensor<32x64xf32, #blk>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{operand 'a' at position 0 does not verify: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem> should be of base attribute tensor}}
    %d = "layout.dot"(%s, %b, %c) : (!S, tensor<16x64xf32, #blk>, tensor<32x64xf32, #blk>) -> tensor<32x64xf32, #blk>
  }
  func.return
}
