// Tiles the guards do not keep inside their tensor are still refused: no guard, a
// guard on another coordinate, a guard too wide, a constant coordinate just past
// the end without `masked`, a `global_idx` guard one row too wide.
// RUN: tilec %s -p default -t cuda --split-input-file --verify-diagnostics

!T = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
func.func @unguarded(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c2, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{tile coordinate 1 takes 2 values but mode 1 of 32 elements has 1 tiles of 32}}
    %S = layout.tile %T[%bx, %by] {tile = array<i64: 32, 32>} : !T
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
func.func @other_coordinate(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c2, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %in = arith.cmpi ult, %bx, %c1 : index
    scf.if %in {
      // expected-error @+1 {{tile coordinate 1 takes 2 values}}
      %S = layout.tile %T[%bx, %by] {tile = array<i64: 32, 32>} : !T
    }
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
func.func @too_wide(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c2, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %in = arith.cmpi ule, %by, %c1 : index
    scf.if %in {
      // expected-error @+1 {{tile coordinate 1 takes 2 values}}
      %S = layout.tile %T[%bx, %by] {tile = array<i64: 32, 32>} : !T
    }
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
func.func @past_the_end(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    // expected-error @+1 {{tile coordinate 0 takes 3 values but mode 0 of 64 elements has 2 tiles of 32}}
    %S = layout.tile %T[%c2, %c0] {tile = array<i64: 32, 32>} : !T
  }
  func.return
}

// -----

// `global_idx.x < 25` lets block 3 (rows 24..31) in: its tile lies outside.
!T = !layout.tensor<f32, #layout.cute<(24,8):(8,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @global_guard(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(8, 8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %gx = layout.global_idx x
    %c24 = arith.constant 25 : index
    %in = arith.cmpi ult, %gx, %c24 : index
    scf.if %in {
      // expected-error @+1 {{tile coordinate 0 takes 4 values but mode 0 of 24 elements has 3 tiles of 8}}
      %S = layout.tile %T[%bx, %by] {tile = array<i64: 8, 8>} : !T
      %tx = layout.thread_idx x
      %ty = layout.thread_idx y
      %x = layout.read %S[%tx, %ty] : !S -> f32
      %y = arith.addf %x, %x : f32
      layout.write %y, %S[%tx, %ty] : f32, !S
    }
  }
  func.return
}
