// Arithmetic on a vector element (Mojo's `elements * 2` after `load[4]`): C++ has no
// operators on the vector structs, so the cuda target prints an elementwise op on
// vectors lane by lane and gathers the lanes into a vector (NVRTC compiles it:
// tests/unit/test_cuda_fingerprints.py, tests/unit/test_vector_arith_cuda.py).
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @scale: equivalent after 'default'

// CHECK-LABEL: scale_kernel(
// CHECK:         const f32x4 two = {{[{][{]}}2.0f, 2.0f, 2.0f, 2.0f{{[}][}]}};
// CHECK-NEXT:    const float [[L0:t_[0-9]+]] = [[V:v_[0-9]+]].v[0] * two.v[0];
// CHECK-NEXT:    const float [[L1:t_[0-9]+]] = [[V]].v[1] * two.v[1];
// CHECK-NEXT:    const float [[L2:t_[0-9]+]] = [[V]].v[2] * two.v[2];
// CHECK-NEXT:    const float [[L3:t_[0-9]+]] = [[V]].v[3] * two.v[3];
// CHECK-NEXT:    const f32x4 [[M:v_[0-9]+]] = {{[{][{]}}[[L0]], [[L1]], [[L2]], [[L3]]{{[}][}]}};
// CHECK-NOT:     f32x4 {{.*}} * 
// CHECK:         const float [[N:t_[0-9]+]] = -[[M]].v[0];
// CHECK:         const int {{t_[0-9]+}} = [[K:v_[0-9]+]].v[0] * [[K]].v[0];
!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
!V = !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
!I = !layout.tensor<i32, #layout.cute<(8,4):(4,1)>, gmem>
!VI = !layout.tensor<i32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
func.func @scale(%x: !layout.ptr<f32>, %y: !layout.ptr<f32>, %k: !layout.ptr<i32>) {
  %Xs = layout.view %x : !layout.ptr<f32> -> !A
  %Ys = layout.view %y : !layout.ptr<f32> -> !A
  %Ks = layout.view %k : !layout.ptr<i32> -> !I
  %X = layout.vectorize %Xs {vector = array<i64: 1, 4>} : !A -> !V
  %Y = layout.vectorize %Ys {vector = array<i64: 1, 4>} : !A -> !V
  %K = layout.vectorize %Ks {vector = array<i64: 1, 4>} : !I -> !VI
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %elements = layout.read %X[%tid, %c0] : !V -> vector<4xf32>
    %two = arith.constant dense<2.0> : vector<4xf32>
    %m = arith.mulf %elements, %two : vector<4xf32>
    %n = arith.negf %m : vector<4xf32>
    %ki = layout.read %K[%tid, %c0] : !VI -> vector<4xi32>
    %kk = arith.muli %ki, %ki : vector<4xi32>
    layout.write %n, %Y[%tid, %c0] : vector<4xf32>, !V
    layout.write %kk, %K[%tid, %c0] : vector<4xi32>, !VI
  }
  func.return
}
