// layout.rank/depth/size/cosize (CuTe's rank, depth, size, cosize and size<I>): a
// static answer is a constant, a dynamic one index arithmetic over the run-time layout.
// A masked tile's size is its tile's (CuTe's), unlike layout.dim (the elements inside).
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @queries: equivalent after 'default'
// CHECK-LABEL: queries_kernel(
!A = !layout.tensor<f32, #layout.cute<(?,8):(?,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(4,8):(?,1)>, gmem, masked>
!N = !layout.tensor<i64, #layout.cute<8:1>, gmem>
func.func @queries(%a: !layout.ptr<f32>, %o: !layout.ptr<i64>, %m: index, %s: index) attributes {tilec.args = {m = 13 : index, s = 9 : index}} {
  %A = layout.view %a(%m, %s) : !layout.ptr<f32> -> !A
  %O = layout.view %o : !layout.ptr<i64> -> !N
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.tile %A[%bx, %by] {tile = array<i64: 4, 8>} : !A -> !T
    %n = layout.size %A : !A
    %n0 = layout.size %A {mode = 0 : i64} : !A
    %cs = layout.cosize %A : !A
    %cs1 = layout.cosize %A {mode = 1 : i64} : !A
    %r = layout.rank %A : !A
    %d = layout.depth %A : !A
    %tn = layout.size %t : !T
    %tc = layout.cosize %t : !T
    %i0 = arith.index_cast %n : index to i64
    %i1 = arith.index_cast %n0 : index to i64
    %i2 = arith.index_cast %cs : index to i64
    %i3 = arith.index_cast %cs1 : index to i64
    %i4 = arith.index_cast %r : index to i64
    %i5 = arith.index_cast %d : index to i64
    %i6 = arith.index_cast %tn : index to i64
    %i7 = arith.index_cast %tc : index to i64
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k5 = arith.constant 5 : index
    %k6 = arith.constant 6 : index
    %k7 = arith.constant 7 : index
    layout.write %i0, %O[%k0] : i64, !N
    layout.write %i1, %O[%k1] : i64, !N
    layout.write %i2, %O[%k2] : i64, !N
    layout.write %i3, %O[%k3] : i64, !N
    layout.write %i4, %O[%k4] : i64, !N
    layout.write %i5, %O[%k5] : i64, !N
    layout.write %i6, %O[%k6] : i64, !N
    layout.write %i7, %O[%k7] : i64, !N
  }
  func.return
}
