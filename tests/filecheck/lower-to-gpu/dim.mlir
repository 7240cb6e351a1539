// layout.dim: the extent of a mode at run time (Mojo tensor.dim, CuTe size<k>); for a
// masked tile, the elements inside the tensor: the last 8-row tile of 30 rows has 6.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @dims: equivalent after
// CHECK-LABEL: dims_kernel(
// CHECK:         const int [[ROOM:t_[0-9]+]] = 30 - {{t_[0-9]+}};
// CHECK-NEXT:    const int [[POS:t_[0-9]+]] = [[ROOM]] > 0 ? [[ROOM]] : 0;
// CHECK-NEXT:    const int {{t_[0-9]+}} = 8 < [[POS]] ? 8 : [[POS]];
!T = !layout.tensor<f32, #layout.cute<(30,8):(8,1)>, gmem>
!Tm = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>
!N = !layout.tensor<i64, #layout.cute<(4,2):(2,1)>, gmem>
func.func @dims(%t: !layout.ptr<f32>, %o: !layout.ptr<i64>) {
  %T = layout.view %t : !layout.ptr<f32> -> !T
  %O = layout.view %o : !layout.ptr<i64> -> !N
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %tile = layout.tile %T[%bx, %by] {tile = array<i64: 8, 8>} : !T -> !Tm
    %r = layout.dim %tile {mode = 0 : i64} : !Tm
    %c = layout.dim %tile {mode = 1 : i64} : !Tm
    %ri = arith.index_cast %r : index to i64
    %ci = arith.index_cast %c : index to i64
    %c0 = arith.constant 0 : index
    layout.write %ri, %O[%bx, %c0] : i64, !N
    layout.write %ci, %O[%bx, %c1] : i64, !N
  }
  func.return
}
