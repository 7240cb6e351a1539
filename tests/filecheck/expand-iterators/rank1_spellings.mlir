// A rank-1 buffer and tile may be written `N:1` or `(N):(1)`, as a view's layout may:
// the buffer iterator takes both (it refused `(16):(1)`).
// RUN: tilec %s -p expand-iterators | filecheck %s
// RUN: tilec %s -p expand-iterators --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @paren_rank1: equivalent after
// CHECK-LABEL: func.func @paren_rank1
// CHECK-NOT: layout.buffer_iterator
// CHECK: layout.tile
!B = !layout.tensor<i16, #layout.cute<(16):(1)>, gmem>
!T = !layout.tensor<i16, #layout.cute<(4):(1)>, gmem>
func.func @paren_rank1(%p: !layout.ptr<i16>, %q: !layout.ptr<i16>) {
  %a = layout.view %p : !layout.ptr<i16> -> !B
  %b = layout.view %q : !layout.ptr<i16> -> !B
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ia = layout.buffer_iterator %a {tile = #layout.cute<(4):(1)>} : !B
  %ib = layout.buffer_iterator %b {tile = #layout.cute<4:1>} : !B
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ra, %rb = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %ia, %y = %ib) -> (!layout.iter<!T>, !layout.iter<!layout.tensor<i16, #layout.cute<4:1>, gmem>>) {
      %t = layout.iter_get %x : !layout.iter<!T>
      %u = layout.iter_get %y : !layout.iter<!layout.tensor<i16, #layout.cute<4:1>, gmem>>
      layout.copy %t, %u : !T, !layout.tensor<i16, #layout.cute<4:1>, gmem>
      %nx = layout.iter_next %x : !layout.iter<!T>
      %ny = layout.iter_next %y : !layout.iter<!layout.tensor<i16, #layout.cute<4:1>, gmem>>
      scf.yield %nx, %ny : !layout.iter<!T>, !layout.iter<!layout.tensor<i16, #layout.cute<4:1>, gmem>>
    }
  }
  func.return
}
