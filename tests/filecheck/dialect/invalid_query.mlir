// layout.rank/depth/size/cosize: verifier errors (round trip: query.mlir).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.size': layout.size: mode 2 out of range for (4,8):(8,1) of rank 2
!T = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
func.func @mode_past_rank(%t: !T) {
  // expected-error @+1 {{layout.size: mode 2 out of range for (4,8):(8,1) of rank 2}}
  %n = layout.size %t {mode = 2 : i64} : !T
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<8:1>, gmem>
func.func @integral_layout_mode(%t: !T) {
  // expected-error @+1 {{layout.rank: mode 1 out of range for 8:1 of rank 1}}
  %n = layout.rank %t {mode = 1 : i64} : !T
  func.return
}
