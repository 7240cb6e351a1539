// RUN: not tilec %s --split-input-file -p default -t cuda 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR < %t.err
// RUN: not tilec %s --split-input-file -p default --check-equivalence 2>%t.err | filecheck %s --check-prefix=EQ
// RUN: filecheck %s --check-prefix=ERR < %t.err
// RUN: not tilec %s --split-input-file --run cpu 2>%t.err | filecheck %s --check-prefix=CPU
// RUN: filecheck %s --check-prefix=CPU-ERR < %t.err
// A tile at a constant coordinate on the edge of its tensor: 32 rows in tiles of 8, so
// row tile 3 is the last inside and row tile 4 the first past the end. Unmasked, tile 3
// is accepted and tile 4 refused (by the lowering and the CPU executor alike); masked,
// tile 3 needs no bound check (no row of it can leave the tensor) and tile 4 keeps it
// (it is empty: nothing is copied).
// The refused tile comes last (a file stops at its first error); errors go to stderr.

// EQ: @last: equivalent after
// EQ: @last_masked: equivalent after
// EQ: @past_masked: equivalent after
// CPU: @last on the CPU reference executor (seed 0): ok
// CPU: @last_masked on the CPU reference executor (seed 0): ok
// CPU: @past_masked on the CPU reference executor (seed 0): ok

// CHECK-LABEL: last_kernel(
// CHECK:         const int [[OFF:t_[0-9]+]] = t_4 + 192;
// CHECK-NEXT:    p[[[OFF]]];
!G = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @last(%p: !layout.ptr<f32>, %q: !layout.ptr<f32> {tilec.partial}) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %t = layout.tile %a[%c3, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    %u = layout.tile %b[%c3, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    layout.copy %t, %u : !T, !T
  }
  func.return
}

// -----

// CHECK-LABEL: last_masked_kernel(
// CHECK-NOT:     if (
// CHECK:         q[{{t_[0-9]+}}] = x;
// CHECK-NEXT:  }
!G = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>
func.func @last_masked(%p: !layout.ptr<f32>, %q: !layout.ptr<f32> {tilec.partial}) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %t = layout.tile %a[%c3, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    %u = layout.tile %b[%c3, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    layout.copy %t, %u : !T, !T
  }
  func.return
}

// -----

// CHECK-LABEL: past_masked_kernel(
// CHECK:         const int [[ROW:t_[0-9]+]] = t_1 + 32;
// CHECK:         const bool [[P:p_[0-9]+]] = [[ROW]] < 32;
// CHECK:         if ([[P]]) {
!G = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>
func.func @past_masked(%p: !layout.ptr<f32>, %q: !layout.ptr<f32> {tilec.partial}) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %t = layout.tile %a[%c4, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    %u = layout.tile %b[%c4, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    layout.copy %t, %u : !T, !T
  }
  func.return
}

// -----

// ERR: tile_at_constant_edge.mlir:[[# @LINE + 12]]:5: error: 'layout.tile': tile coordinate 0 takes 5 values but mode 0 of 32 elements has 4 tiles of 8: the last tiles lie outside the tensor; make the result type `masked` (they are then empty) or launch 4 blocks along it
// CPU-ERR: tile_at_constant_edge.mlir:[[# @LINE + 11]]:5: error: 'layout.tile': tile coordinate 4 of mode 0 is out of range: tiles of 8 of a mode of 32 elements (a `masked` result type makes tiles past the end empty)
!G = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @past(%p: !layout.ptr<f32>, %q: !layout.ptr<f32> {tilec.partial}) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %t = layout.tile %a[%c4, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    %u = layout.tile %b[%c4, %c0] {tile = array<i64: 8, 8>} : !G -> !T
    layout.copy %t, %u : !T, !T
  }
  func.return
}
