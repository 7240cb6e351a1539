// RUN: tilec %s -p default --check-equivalence | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Regression (issue 18): a block-level copy of a slice that keeps a nested mode (CuTe's
// inner partition `tiled_a(make_coord(_, _), blk)`: the slice keeps the tile mode
// (4,8) of a zipped divide ((4,8),(2,3))) passed `--run cpu` but failed in lower-to-gpu
// with "'layout.load': view rank and tensor rank differ". The slice keeps one mode per
// `_` (CuTe's rule): the result is ((4,8)), rank 1, and A(i, _) of a (4,(5,2)) tensor
// is ((5,2)).

// CHECK: // @inner_partition: equivalent after 'default'
// CHECK: // @nested_row: equivalent after 'default'
// CUDA-LABEL: // kernel inner_partition_kernels::inner_partition_kernel
// CUDA-LABEL: // kernel nested_row_kernels::nested_row_kernel
!A = !layout.tensor<f32, #layout.cute<(8,24):(1,8)>, gmem>
!Z = !layout.tensor<f32, #layout.cute<((4,8),(2,3)):((1,8),(4,64))>, gmem>
!T = !layout.tensor<f32, #layout.cute<((4,8)):((1,8))>, gmem>
func.func @inner_partition(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %b = layout.view %dst : !layout.ptr<f32> -> !A
  %za = layout.divide %a {kind = "zipped", tiler = array<i64: 4, 8>} : !A -> !Z
  %zb = layout.divide %b {kind = "zipped", tiler = array<i64: 4, 8>} : !A -> !Z
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  layout.launch grid(%c6, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %ta = layout.slice %za[_, %bx] : !Z -> !T
    %tb = layout.slice %zb[_, %bx] : !Z -> !T
    layout.copy %ta, %tb : !T, !T
  }
  func.return
}

// A(i, _) of a (4,(5,2)) tensor: the kept mode (5,2) is nested.
!B = !layout.tensor<f32, #layout.cute<(4,(5,2)):(1,(4,20))>, gmem>
!R = !layout.tensor<f32, #layout.cute<((5,2)):((4,20))>, gmem>
func.func @nested_row(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !B
  %b = layout.view %dst : !layout.ptr<f32> -> !B
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c4, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %ra = layout.slice %a[%bx, _] : !B -> !R
    %rb = layout.slice %b[%bx, _] : !B -> !R
    layout.copy %ra, %rb : !R, !R
  }
  func.return
}
