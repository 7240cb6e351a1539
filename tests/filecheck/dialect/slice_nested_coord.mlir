// RUN: tilec %s | filecheck %s
// RUN: tilec %s | tilec | filecheck %s
// CuTe's slicing examples (the Tensor guide, "Slicing"), written as the guide writes
// them: a nested coordinate is a parenthesised tuple (make_coord), and the result has
// one mode per `_`.
//   A = ((_3,2),(2,_5,_2)):((4,1),(_2,13,100))

!A = !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>

// CHECK-LABEL: func.func @cute_slices
func.func @cute_slices(%p: !layout.ptr<f32>, %j: index) {
  %a = layout.view %p : !layout.ptr<f32> -> !A
  // B = A(2,_): ((2,_5,_2)):((_2,13,100))
  // CHECK: layout.slice %{{.*}}[2, _] : {{.*}} -> !layout.tensor<f32, #layout.cute<((2,5,2)):((2,13,100))>, gmem>
  %b = layout.slice %a[2, _] : !A -> !layout.tensor<f32, #layout.cute<((2,5,2)):((2,13,100))>, gmem>
  // C = A(_,5): ((_3,_2)):((4,1))
  // CHECK: layout.slice %{{.*}}[_, 5] : {{.*}} -> !layout.tensor<f32, #layout.cute<((3,2)):((4,1))>, gmem>
  %c = layout.slice %a[_, 5] : !A -> !layout.tensor<f32, #layout.cute<((3,2)):((4,1))>, gmem>
  // D = A(make_coord(_,_),5): (_3,2):(4,1)
  // CHECK: layout.slice %{{.*}}[(_, _), 5] : {{.*}} -> !layout.tensor<f32, #layout.cute<(3,2):(4,1)>, gmem>
  %d = layout.slice %a[(_, _), 5] : !A -> !layout.tensor<f32, #layout.cute<(3,2):(4,1)>, gmem>
  // E = A(make_coord(_,1),make_coord(0,_,1)): (_3,_5):(4,13)
  // CHECK: layout.slice %{{.*}}[(_, 1), (0, _, 1)] : {{.*}} -> !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
  %e = layout.slice %a[(_, 1), (0, _, 1)] : !A -> !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
  // F = A(make_coord(2,_),make_coord(_,3,_)): (2,2,_2):(1,_2,100)
  // CHECK: layout.slice %{{.*}}[(2, _), (_, 3, _)] : {{.*}} -> !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,100)>, gmem>
  %f = layout.slice %a[(2, _), (_, 3, _)] : !A -> !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,100)>, gmem>
  // a run-time coordinate inside a tuple
  // CHECK: layout.slice %{{.*}}[(_, %{{.*}}), (%{{.*}}, _, 1)] : {{.*}} -> !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
  %g = layout.slice %a[(_, %j), (%j, _, 1)] : !A -> !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
  func.return
}
