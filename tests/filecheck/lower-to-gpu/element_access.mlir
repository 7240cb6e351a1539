// layout.read / layout.write inside a launch: each thread addresses its own element,
// by mode (CuTe's A(m, n)), by linear index (A[i]), by leaf of a nested shape
// (A(make_coord(make_coord(m0, m1), n))) and a vectorized view's whole vector; the
// reference executor runs the program before and after, and the CUDA indexes storage
// directly (the nested view's leaves fold into one offset).
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @forms: equivalent after 'default'
// EQ: @guarded_tile: equivalent after 'default'

// CHECK-LABEL: forms_kernel(
// CHECK:         const float x = a[[[A:t_[0-9]+]]];
// CHECK:         b[{{t_[0-9]+}}] = x;
// CHECK:         const float x_1 = a[{{t_[0-9]+}}];
// CHECK:         c[tid] = x_1;
// CHECK:         const float x_2 = n[{{t_[0-9]+}}];
// CHECK:         d[tid] = x_2;
// CHECK:         if (p) {
// CHECK-COUNT-4:   = v_in[
// CHECK:           const f32x4 v = {{[{][{]}}x_3, x_3, x_3, x_3{{[}][}]}};
// CHECK-COUNT-4:   w[{{t_[0-9]+}}] = {{t_[0-9]+}};
!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
!B = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
!L = !layout.tensor<f32, #layout.cute<32:1>, gmem>
!N = !layout.tensor<f32, #layout.cute<((2,2),(2,4)):((1,4),(2,8))>, gmem>
!V = !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
func.func @forms(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>, %c: !layout.ptr<f32>, %n: !layout.ptr<f32>, %d: !layout.ptr<f32>, %v_in: !layout.ptr<f32>, %w: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !A
  %B = layout.view %b : !layout.ptr<f32> -> !B
  %C = layout.view %c : !layout.ptr<f32> -> !L
  %N = layout.view %n : !layout.ptr<f32> -> !N
  %D = layout.view %d : !layout.ptr<f32> -> !L
  %Vs = layout.view %v_in : !layout.ptr<f32> -> !A
  %Ws = layout.view %w : !layout.ptr<f32> -> !A
  %V = layout.vectorize %Vs {vector = array<i64: 1, 4>} : !A -> !V
  %W = layout.vectorize %Ws {vector = array<i64: 1, 4>} : !A -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %i = arith.divui %tid, %c4 : index
    %j = arith.remui %tid, %c4 : index
    %x = layout.read %A[%i, %j] : !A -> f32
    layout.write %x, %B[%j, %i] : f32, !B
    %y = layout.read %A[%tid] : !A -> f32
    layout.write %y, %C[%tid] : f32, !L
    %m0 = arith.remui %tid, %c2 : index
    %q = arith.divui %tid, %c2 : index
    %m1 = arith.remui %q, %c2 : index
    %q2 = arith.divui %q, %c2 : index
    %n0 = arith.remui %q2, %c2 : index
    %n1 = arith.divui %q2, %c2 : index
    %z = layout.read %N[%m0, %m1, %n0, %n1] : !N -> f32
    layout.write %z, %D[%tid] : f32, !L
    %lo = arith.cmpi ult, %tid, %c8 : index
    scf.if %lo {
      %v = layout.read %V[%tid, %c0] : !V -> vector<4xf32>
      %r = arith.subi %c8, %tid : index
      %r1 = arith.subi %r, %c1 : index
      layout.write %v, %W[%r1, %c0] : vector<4xf32>, !V
    }
  }
  func.return
}

// A 30x8 tensor in masked 8x8 tiles, read and written through the tile by thread
// coordinates, guarded as the seeds guard (`if global_idx < shape`); the CUDA also
// guards each access by the tile's mask.
// CHECK-LABEL: guarded_tile_kernel(
// CHECK:         if (p) {
// CHECK:           if (p_1) {
// CHECK-NEXT:        const float x = t[[[OFF:t_[0-9]+]]];
// CHECK:           } else {
// CHECK-NEXT:        r = 0.0f;
// CHECK:           if (p_1) {
// CHECK-NEXT:        t[[[OFF]]] = {{t_[0-9]+}};
!T = !layout.tensor<f32, #layout.cute<(30,8):(8,1)>, gmem>
!Tm = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>
func.func @guarded_tile(%t: !layout.ptr<f32>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c8 = arith.constant 8 : index
    %c30 = arith.constant 30 : index
    %tile = layout.tile %T[%bx, %by] {tile = array<i64: 8, 8>} : !T -> !Tm
    %tx = arith.remui %tid, %c8 : index
    %ty = arith.divui %tid, %c8 : index
    %r0 = arith.muli %bx, %c8 : index
    %row = arith.addi %r0, %ty : index
    %in = arith.cmpi ult, %row, %c30 : index
    scf.if %in {
      %x = layout.read %tile[%ty, %tx] : !Tm -> f32
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      layout.write %y, %tile[%ty, %tx] : f32, !Tm
    }
  }
  func.return
}

// Mojo's `load[4](x, y)`: on 16-byte aligned buffers every element of the vectorized
// view is one aligned run of 4 contiguous floats: one 16-byte access each way.
// EQ: @vector_element: equivalent after 'default'
// CHECK-LABEL: vector_element_kernel(
// CHECK:         const f32x4 v = *reinterpret_cast<const f32x4*>(src + [[OFF:t(_[0-9]+)?]]);
// CHECK:         *reinterpret_cast<f32x4*>(dst + [[OFF]]) = v;
!Av = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
!Vv = !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
func.func @vector_element(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %s = layout.view %src : !layout.ptr<f32, align 16> -> !Av
  %d = layout.view %dst : !layout.ptr<f32, align 16> -> !Av
  %vs = layout.vectorize %s {vector = array<i64: 1, 4>} : !Av -> !Vv
  %vd = layout.vectorize %d {vector = array<i64: 1, 4>} : !Av -> !Vv
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %v = layout.read %vs[%tid, %c0] : !Vv -> vector<4xf32>
    layout.write %v, %vd[%tid, %c0] : vector<4xf32>, !Vv
  }
  func.return
}
