// layout.read / layout.write with nested coordinates (CuTe's
// A(make_coord(make_coord(m0, m1), make_coord(n0, n1))), TileTensor's Coord(Coord(...))):
// each thread reads its element of a ((2,2),(2,4)) view by a tuple per mode, or by a
// tuple for one mode and a 1-D index for the other, and writes it back the same way;
// the reference executor runs the program before and after (NumPy's answer:
// tests/unit/test_element_access.py), and the CUDA indexes storage directly.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @nested: equivalent after 'default'

// CHECK-LABEL: nested_kernel(
// CHECK:         const float x = n[{{t_[0-9]+}}];
// CHECK-NEXT:    d[tid] = x;
// CHECK:         const float x_1 = n[{{t_[0-9]+}}];
// CHECK:         n[{{t_[0-9]+}}] = x_1;
!N = !layout.tensor<f32, #layout.cute<((2,2),(2,4)):((1,4),(2,8))>, gmem>
!L = !layout.tensor<f32, #layout.cute<32:1>, gmem>
func.func @nested(%n: !layout.ptr<f32>, %d: !layout.ptr<f32>) {
  %N = layout.view %n : !layout.ptr<f32> -> !N
  %D = layout.view %d : !layout.ptr<f32> -> !L
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %m0 = arith.remui %tid, %c2 : index
    %q = arith.divui %tid, %c2 : index
    %m1 = arith.remui %q, %c2 : index
    %m = arith.remui %tid, %c4 : index
    %nn = arith.divui %tid, %c4 : index
    %q2 = arith.divui %q, %c2 : index
    %n0 = arith.remui %q2, %c2 : index
    %n1 = arith.divui %q2, %c2 : index
    %z = layout.read %N[(%m0, %m1), (%n0, %n1)] : !N -> f32
    layout.write %z, %D[%tid] : f32, !L
    %y = layout.read %N[(%m0, %m1), %nn] : !N -> f32
    layout.write %y, %N[%m, (%n0, %n1)] : f32, !N
  }
  func.return
}
