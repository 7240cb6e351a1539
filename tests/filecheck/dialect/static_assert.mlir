// layout.static_assert (CUTE_STATIC_ASSERT_V, Mojo's comptime assert): round trip of
// conditions the verifier proves; lower-to-gpu erases them, the program computes the
// same (verifier errors: invalid_static_assert.mlir).
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s -p default | filecheck %s --check-prefix=LOWERED
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @asserts: equivalent after 'default'

// CHECK-LABEL: func.func @asserts
// CHECK: layout.static_assert %matrix, "the view is a matrix"
// CHECK: layout.static_assert %whole, "the tile divides the view"
// CHECK: layout.static_assert %flat, "mode 1 is nested once"
// LOWERED-NOT: layout.static_assert
// CUDA-LABEL: asserts_kernel(
// CUDA: q[
!A = !layout.tensor<f32, #layout.cute<(?,(2,4)):(8,(4,1))>, gmem>
!T = !layout.tensor<f32, #layout.cute<(4,(2,4)):(8,(4,1))>, gmem, masked>
func.func @asserts(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %m: index) attributes {tilec.args = {m = 10 : index}} {
  %a = layout.view %p(%m) : !layout.ptr<f32> -> !A
  %b = layout.view %q(%m) : !layout.ptr<f32> -> !A
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = layout.rank %a : !A
  %matrix = arith.cmpi eq, %r, %c2 : index
  layout.static_assert %matrix, "the view is a matrix"
  %g = arith.constant 3 : index
  layout.launch grid(%g, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.tile %a[%bx, %by] {tile = array<i64: 4, 8>} : !A -> !T
    %d = layout.tile %b[%bx, %by] {tile = array<i64: 4, 8>} : !A -> !T
    %n1 = layout.size %a {mode = 1 : i64} : !A
    %t1 = layout.size %s {mode = 1 : i64} : !T
    %rem = arith.remsi %n1, %t1 : index
    %c0 = arith.constant 0 : index
    %whole = arith.cmpi eq, %rem, %c0 : index
    layout.static_assert %whole, "the tile divides the view"
    %dp = layout.depth %s {mode = 1 : i64} : !T
    %flat = arith.cmpi eq, %dp, %c1 : index
    layout.static_assert %flat, "mode 1 is nested once"
    layout.copy %s, %d : !T, !T
  }
  func.return
}
