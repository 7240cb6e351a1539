// layout.static_assert: a false condition is an error at the op with the user's
// message; a condition known only at run time is an error too (round trip:
// static_assert.mlir).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: invalid_static_assert.mlir:13:3: error: 'layout.static_assert': static assertion failed: expected a rank-3 view
!T = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
func.func @false_condition(%t: !T) {
  %r = layout.rank %t : !T
  %c3 = arith.constant 3 : index
  %ok = arith.cmpi eq, %r, %c3 : index
  // expected-error @+1 {{static assertion failed: expected a rank-3 view}}
  layout.static_assert %ok, "expected a rank-3 view"
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(?,8):(8,1)>, gmem>
func.func @run_time_condition(%t: !T) {
  %n = layout.size %t : !T
  %c64 = arith.constant 64 : index
  %ok = arith.cmpi sle, %n, %c64 : index
  // expected-error @+1 {{static assertion "at most 64 elements": the condition is not known at compile time (it depends on a run-time value; test it with scf.if)}}
  layout.static_assert %ok, "at most 64 elements"
  func.return
}

// -----

func.func @argument(%b: i1) {
  // expected-error @+1 {{static assertion "an argument": the condition is not known at compile time (it depends on a run-time value; test it with scf.if)}}
  layout.static_assert %b, "an argument"
  func.return
}
