// Verifier errors of layout.launch, layout.view and layout.alloc.
// RUN: tilec %s --split-input-file --verify-diagnostics

func.func @view_elt(%p: !layout.ptr<f16>) {
  // expected-error @+1 {{element types disagree: pointer to f16, view of f32}}
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

func.func @view_dyn(%p: !layout.ptr<f32>, %m: index) {
  // expected-error @+1 {{layout (?,?):(?,1) has 3 dynamic value(s) but 1 index operand(s) were given}}
  %a = layout.view %p(%m) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// -----

func.func @view_space(%p: !layout.ptr<f32>) {
  // expected-error @+1 {{a view of a pointer is in gmem}}
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, smem>
  func.return
}

// -----

func.func @view_masked(%p: !layout.ptr<f32>) {
  // expected-error @+1 {{a view of a pointer is not masked}}
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>
  func.return
}

// -----

func.func @view_vec(%p: !layout.ptr<f32>) {
  // expected-error @+1 {{view a pointer with scalar elements, then vectorize}}
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,2):(8,4)>, gmem, vec #layout.cute<(1,4):(8,1)>>
  func.return
}

// -----

func.func @view_src(%p: index) {
  // expected-error @+1 {{expected a !layout.ptr or a !layout.tensor, got index}}
  %a = layout.view %p : index -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

func.func @review_past(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, smem>
    // expected-error @+1 {{the view's layout (32,32):(33,1) reaches offset 1054, past the allocation of 1024 elements}}
    %r = layout.view %s : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, smem> -> !layout.tensor<f32, #layout.cute<(32,32):(33,1)>, smem>
  }
  func.return
}

// -----

func.func @review_space(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, smem>
    // expected-error @+1 {{re-view shared or register storage in the same memory space}}
    %r = layout.view %s : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, smem> -> !layout.tensor<f32, #layout.cute<1024:1>, rmem>
  }
  func.return
}

// -----

func.func @alloc_outside() {
  // expected-error @+1 {{layout.alloc must be inside a layout.launch}}
  %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, smem>
  func.return
}

// -----

func.func @alloc_gmem(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{alloc makes smem or rmem storage}}
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
  }
  func.return
}

// -----

func.func @alloc_big(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{shared allocation of 262144 bytes exceeds the 227 KiB of a block}}
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, smem>
  }
  func.return
}

// -----

func.func @launch_threads(%c: index) {
  // expected-error @+1 {{threads must be in [1, 1024], got 2048}}
  layout.launch grid(%c, %c, %c) threads(2048) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
  }
  func.return
}

// -----

func.func @launch_args(%c: index) {
  // expected-error @+1 {{the body takes four index arguments: block id x, y, z and the thread id}}
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %tid: index):
  }
  func.return
}

// -----

func.func @launch_grid(%c: index) {
  // expected-error @+1 {{grid takes three sizes (x, y, z)}}
  layout.launch grid(%c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
  }
  func.return
}

// -----

func.func @view_divisible_count(%p: !layout.ptr<f32>, %m: index, %s: index) {
  // expected-error @+1 {{divisible has 1 entries but the view binds 2 dynamic value(s)}}
  %a = layout.view %p(%m, %s) {divisible = array<i64: 4>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,8):(?,1)>, gmem>
  func.return
}

// -----

func.func @view_divisible_zero(%p: !layout.ptr<f32>, %m: index, %s: index) {
  // expected-error @+1 {{divisible entries must be positive, got [1, 0]}}
  %a = layout.view %p(%m, %s) {divisible = array<i64: 1, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,8):(?,1)>, gmem>
  func.return
}

// -----

func.func @view_at_most_count(%p: !layout.ptr<f32>, %m: index, %s: index) {
  // expected-error @+1 {{at_most has 1 entries but the view binds 2 dynamic value(s)}}
  %a = layout.view %p(%m, %s) {at_most = array<i64: 4>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,8):(?,1)>, gmem>
  func.return
}

// -----

func.func @view_at_most_negative(%p: !layout.ptr<f32>, %m: index, %s: index) {
  // expected-error @+1 {{at_most entries must be 0 (none) or positive, got [-1, 0]}}
  %a = layout.view %p(%m, %s) {at_most = array<i64: -1, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,8):(?,1)>, gmem>
  func.return
}

// -----

func.func @view_residue_past_modulus(%p: !layout.ptr<i8>, %m: index, %s: index) {
  // expected-error @+1 {{residue entries must lie below their `divisible` entries, got [0, 32]}}
  %a = layout.view %p(%m, %s) {divisible = array<i64: 1, 32>, residue = array<i64: 0, 32>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,8):(?,1)>, gmem>
  func.return
}

// -----

func.func @view_residue_without_divisible(%p: !layout.ptr<i8>, %m: index, %s: index) {
  // expected-error @+1 {{residue has 2 entries, one per dynamic value (2) below its `divisible` entry}}
  %a = layout.view %p(%m, %s) {residue = array<i64: 0, 3>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,8):(?,1)>, gmem>
  func.return
}
