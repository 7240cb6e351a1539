// Invalid `#layout.auto` attributes and uses: syntax and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics

// expected-error @+1 {{#layout.auto warps must be a power of two in [1, 32], got 3}}
func.func private @auto_warps() attributes {l = #layout.auto<{rank = 2, warps = 3}>}

// -----

// expected-error @+1 {{#layout.auto warps must be a power of two in [1, 32], got 64}}
func.func private @auto_many_warps() attributes {l = #layout.auto<{rank = 2, warps = 64}>}

// -----

// expected-error @+1 {{#layout.auto rank must be at least 1, got 0}}
func.func private @auto_rank() attributes {l = #layout.auto<{rank = 0, warps = 4}>}

// -----

// expected-error @+1 {{missing field(s) warps}}
func.func private @auto_missing() attributes {l = #layout.auto<{rank = 2}>}

// -----

// expected-error @+1 {{unknown field 'order', expected one of rank, warps}}
func.func private @auto_field() attributes {l = #layout.auto<{rank = 2, warps = 4, order = 1}>}

// -----

// The warps of the layout are the block's: 4 warps in a block of 64 threads is an error.
func.func @auto_threads(%p: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout #layout.auto<{rank = 2, warps = 4}> spans 128 threads but the block has 64}}
    %x = layout.load %a : !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem> -> tensor<4x256xf32, #layout.auto<{rank = 2, warps = 4}>>
  }
  func.return
}

// -----

// The rank is the tensor's.
func.func @auto_rank_mismatch(%p: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{has rank 1 but the tensor has rank 2}}
    %x = layout.load %a : !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem> -> tensor<4x256xf32, #layout.auto<{rank = 1, warps = 4}>>
  }
  func.return
}

// -----

// A `threads(auto)` launch does not use its thread id.
func.func @open_threads_tid(%p: !layout.ptr<f32, align 16>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{a launch with threads(auto) does not use its thread id: the compiler chooses the threads}}
  layout.launch grid(%c1, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = arith.addi %tid, %c1 : index
  }
  func.return
}

// -----

// `threads(auto)` takes no extents.
func.func @open_threads_extents(%p: !layout.ptr<f32, align 16>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{threads(auto) takes no extents}}
  layout.launch grid(%c1, %c1, %c1) threads(auto, 4) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
  }
  func.return
}
