// --verify-diagnostics fails (exit status 1) when the errors produced are not the
// errors expected: a wrong message, an error on another line, an expected error that
// does not occur, an error that was not expected. Each mismatch is one line.
// RUN: not tilec %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 4]]: expected error 'this is not the message' was not produced (got: line [[# @LINE + 4]]: element types disagree: pointer to f16, view of f32)
// CHECK-NEXT: verify_diagnostics_mismatch.mlir:[[# @LINE + 3]]: unexpected error: element types disagree
func.func @wrong_message(%p: !layout.ptr<f16>) {
  // expected-error @+1 {{this is not the message}}
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

// CHECK-NEXT: verify_diagnostics_mismatch.mlir:[[# @LINE + 4]]: expected error 'element types disagree' was not produced (got: line [[# @LINE + 5]]: element types disagree
// CHECK-NEXT: verify_diagnostics_mismatch.mlir:[[# @LINE + 4]]: unexpected error: element types disagree
func.func @wrong_line(%p: !layout.ptr<f16>) {
  // expected-error @+1 {{element types disagree}}
  %c = arith.constant 0 : index
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

// CHECK-NEXT: verify_diagnostics_mismatch.mlir:[[# @LINE + 3]]: expected error 'element types disagree' was not produced (got: no error)
func.func @no_error(%p: !layout.ptr<f32>) {
  // expected-error @+1 {{element types disagree}}
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

// CHECK-NEXT: verify_diagnostics_mismatch.mlir:[[# @LINE + 2]]: unexpected error: element types disagree: pointer to f16, view of f32
func.func @unexpected(%p: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}

// -----

// A chunk whose expected error is produced passes, and does not hide the others.
// CHECK-NOT: expected error
func.func @matches(%p: !layout.ptr<f16>) {
  // expected-error @+1 {{element types disagree}}
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  func.return
}
