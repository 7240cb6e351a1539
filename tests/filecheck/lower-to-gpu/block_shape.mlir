// A 3-D block shape (4, 2, 2) on a (2, 3, 1) grid: each thread writes its global x, y
// and z coordinates at its global position; lower-to-gpu computes them from the 1-D
// hardware thread id (x = tid % 4, y = (tid / 4) % 2, z = tid / 8) and the block ids.
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// EQ: @coordinates: equivalent after 'lower-to-gpu'

// CHECK-LABEL: coordinates_kernel(
// CHECK:         const int t = bx * 4;
// CHECK-NEXT:    const int t_1 = tid & 3;
// CHECK-NEXT:    const int t_2 = t + t_1;
// CHECK:         const int t_4 = (int)((unsigned int)tid >> (unsigned int)2);
// CHECK-NEXT:    const int t_5 = t_4 & 1;
// CHECK:         const int t_8 = (int)((unsigned int)tid >> (unsigned int)3);
!O = !layout.tensor<i32, #layout.cute<(8,6,2):(1,8,48)>, gmem>
func.func @coordinates(%xs: !layout.ptr<i32>, %ys: !layout.ptr<i32>, %zs: !layout.ptr<i32>) {
  %X = layout.view %xs : !layout.ptr<i32> -> !O
  %Y = layout.view %ys : !layout.ptr<i32> -> !O
  %Z = layout.view %zs : !layout.ptr<i32> -> !O
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c2, %c3, %c1) threads(4, 2, 2) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %gx = layout.global_idx x
    %gy = layout.global_idx y
    %gz = layout.global_idx z
    %x = arith.index_cast %gx : index to i32
    %y = arith.index_cast %gy : index to i32
    %z = arith.index_cast %gz : index to i32
    layout.write %x, %X[%gx, %gy, %gz] : i32, !O
    layout.write %y, %Y[%gx, %gy, %gz] : i32, !O
    layout.write %z, %Z[%gx, %gy, %gz] : i32, !O
  }
  func.return
}
