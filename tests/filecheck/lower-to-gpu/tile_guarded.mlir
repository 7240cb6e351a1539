// A tile under the guard that keeps it inside its tensor (seed 000's `if global_idx <
// shape` pattern, on the block id): the guard bounds the coordinate, so the tile is
// accepted without a mask, and the program runs as before. Tiles at constant edge
// coordinates: the last tile is accepted unmasked, the one just past the end only
// masked (it is then empty). The refusals are in tile_guarded_errors.mlir.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @guarded: equivalent after 'default'
// EQ: @guarded_else: equivalent after 'default'
// EQ: @edge: equivalent after 'default'
// EQ: @global_guard: equivalent after 'default'

// CHECK-LABEL: guarded_kernel(
// CHECK:         if ({{t_[0-9]+}}) {
// CHECK-NOT:       if (
// CHECK:           t[{{t_[0-9]+}}] =
!T = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!M = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem, masked>
func.func @guarded(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c2, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %in = arith.cmpi ult, %by, %c1 : index
    %ok = arith.cmpi sle, %bx, %c1 : index
    %both = arith.andi %in, %ok : i1
    scf.if %both {
      %S = layout.tile %T[%bx, %by] {tile = array<i64: 32, 32>} : !T
      %x = layout.read %S[%tid, %tid] : !S -> f32
      %y = arith.addf %x, %x : f32
      layout.write %y, %S[%tid, %tid] : f32, !S
    }
  }
  func.return
}

// The negated guard: the tile in the `else` region of `if by >= 1`.
// CHECK-LABEL: guarded_else_kernel(
func.func @guarded_else(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c2, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %out = arith.cmpi uge, %by, %c1 : index
    scf.if %out {
    } else {
      %S = layout.tile %T[%bx, %by] {tile = array<i64: 32, 32>} : !T
      %x = layout.read %S[%tid, %tid] : !S -> f32
      layout.write %x, %S[%tid, %c1] : f32, !S
    }
  }
  func.return
}

// Constant coordinates: (1, 0) is the last tile along mode 0, unmasked; (2, 0) lies
// past the end, masked: it is empty, and a copy of it copies nothing.
// CHECK-LABEL: edge_kernel(
func.func @edge(%t: !layout.ptr<f32>, %u: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %U = layout.view %u : !layout.ptr<f32> -> !T
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %S = layout.tile %T[%c1, %c0] {tile = array<i64: 32, 32>} : !T
    %x = layout.read %S[%tid, %tid] : !S -> f32
    layout.write %x, %S[%tid, %c0] : f32, !S
    %P = layout.tile %T[%c2, %c0] {tile = array<i64: 32, 32>} : !T -> !M
    %Q = layout.tile %U[%c2, %c0] {tile = array<i64: 32, 32>} : !T -> !M
    layout.copy %P, %Q : !M, !M
  }
  func.return
}

// Seed 000's `if global_idx.x < 24` on 8x8 blocks over a 24-row tensor: global_idx is
// bx * 8 + x, so the guard bounds bx by 3 (the fourth block does nothing).
// CHECK-LABEL: global_guard_kernel(
!G = !layout.tensor<f32, #layout.cute<(24,8):(8,1)>, gmem>
!E = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @global_guard(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(8, 8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %gx = layout.global_idx x
    %c24 = arith.constant 24 : index
    %in = arith.cmpi ult, %gx, %c24 : index
    scf.if %in {
      %S = layout.tile %T[%bx, %by] {tile = array<i64: 8, 8>} : !G
      %tx = layout.thread_idx x
      %ty = layout.thread_idx y
      %x = layout.read %S[%tx, %ty] : !E -> f32
      %y = arith.addf %x, %x : f32
      layout.write %y, %S[%tx, %ty] : f32, !E
    }
  }
  func.return
}
