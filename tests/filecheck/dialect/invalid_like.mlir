// layout.make_tensor_like / layout.make_fragment_like: verifier errors (round trip:
// like.mlir).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.make_fragment_like': layout.make_fragment_like of (4,8):(8,1) is !layout.tensor<f32, #layout.cute<(4,8):(1,4)>, rmem>, not !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>
!T = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
func.func @wrong_result(%t: !T) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.make_fragment_like of (4,8):(8,1) is !layout.tensor<f32, #layout.cute<(4,8):(1,4)>, rmem>, not !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>}}
    %b = layout.make_fragment_like %t : !T -> !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(?,8):(8,1)>, gmem>
func.func @dynamic_extent(%t: !T) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.make_tensor_like of a view with a dynamic extent ((?,8):(8,1)): registers are sized at compile time; tile it first}}
    %b = layout.make_tensor_like %t : !T -> !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
func.func @outside_launch(%t: !T) {
  // expected-error @+1 {{layout.make_tensor_like makes registers of a thread: it goes inside a layout.launch}}
  %b = layout.make_tensor_like %t : !T -> !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>
  func.return
}

// -----

!V = !layout.tensor<f32, #layout.cute<(4,2):(8,4)>, gmem, vec #layout.cute<(1,4):(8,1)>>
func.func @vectorized(%t: !V) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.make_fragment_like of a vectorized view: make it of the scalar view, then vectorize}}
    %b = layout.make_fragment_like %t : !V -> !layout.tensor<f32, #layout.cute<(4,2):(1,4)>, rmem>
  }
  func.return
}
