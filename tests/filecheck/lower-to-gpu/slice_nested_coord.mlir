// RUN: tilec %s -p default --check-equivalence | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Nested slice coordinates (issue 18), CuTe's A(make_coord(_,1), make_coord(0,_,1)) and
// A(make_coord(2,_), make_coord(_,3,_)) of the Tensor guide's
// A = ((3,2),(2,5,2)):((4,1),(2,13,100)), copied out block by block; the block id is a
// run-time coordinate inside a tuple (A(make_coord(_, blk), make_coord(0, _, 1))).

// CHECK: // @guide_slices: equivalent after 'default'
// CHECK: // @runtime_tuple_coord: equivalent after 'default'
// CUDA-LABEL: // kernel guide_slices_kernels::guide_slices_kernel
// CUDA-LABEL: // kernel runtime_tuple_coord_kernels::runtime_tuple_coord_kernel
!A = !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
!E = !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
!F = !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,100)>, gmem>
!OE = !layout.tensor<f32, #layout.cute<(3,5):(1,3)>, gmem>
!OF = !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,4)>, gmem>
func.func @guide_slices(%src: !layout.ptr<f32>, %de: !layout.ptr<f32>, %df: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %oe = layout.view %de : !layout.ptr<f32> -> !OE
  %of = layout.view %df : !layout.ptr<f32> -> !OF
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %e = layout.slice %a[(_, 1), (0, _, 1)] : !A -> !E
    %f = layout.slice %a[(2, _), (_, 3, _)] : !A -> !F
    layout.copy %e, %oe : !E, !OE
    layout.copy %f, %of : !F, !OF
  }
  func.return
}

!O2 = !layout.tensor<f32, #layout.cute<(3,5,2):(1,3,15)>, gmem>
func.func @runtime_tuple_coord(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %o = layout.view %dst : !layout.ptr<f32> -> !O2
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %e = layout.slice %a[(_, %bx), (0, _, 1)] : !A -> !E
    %ob = layout.slice %o[_, _, %bx] : !O2 -> !OE
    layout.copy %e, %ob : !E, !OE
  }
  func.return
}
