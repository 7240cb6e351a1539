// layout.rank/depth/size/cosize: round trip, and canonicalize folding the static
// queries to constants (verifier errors: invalid_query.mlir; lowering and run-time
// answers: lower-to-gpu/query.mlir).
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s -p canonicalize | filecheck %s --check-prefix=FOLD
// RUN: tilec %s -p canonicalize --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @queries: equivalent after 'canonicalize'

// CHECK-LABEL: func.func @queries
// CHECK: %n = layout.size %a : !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>
// CHECK: %n0 = layout.size %a {mode = 0 : i64} : !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>
// CHECK: %n1 = layout.size %a {mode = 1 : i64} : !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>
// CHECK: %c = layout.cosize %a : !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>
// CHECK: %r = layout.rank %a : !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>
// CHECK: %d = layout.depth %a {mode = 1 : i64} : !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>

// FOLD-LABEL: func.func @queries
// FOLD-DAG: %n = layout.size %a :
// FOLD-DAG: %n0 = layout.size %a {mode = 0 : i64} :
// FOLD-DAG: %c = layout.cosize %a :
// FOLD-DAG: %n1 = arith.constant 8 : index
// FOLD-DAG: %r = arith.constant 2 : index
// FOLD-DAG: %d = arith.constant 1 : index
// FOLD-NOT: layout.rank
// FOLD-NOT: layout.depth
!A = !layout.tensor<f32, #layout.cute<(?,(2,4)):(?,(4,1))>, gmem>
!N = !layout.tensor<i64, #layout.cute<6:1>, gmem>
func.func @queries(%p: !layout.ptr<f32>, %o: !layout.ptr<i64>, %m: index, %s: index) attributes {tilec.args = {m = 5 : index, s = 16 : index}} {
  %a = layout.view %p(%m, %s) : !layout.ptr<f32> -> !A
  %O = layout.view %o : !layout.ptr<i64> -> !N
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %n = layout.size %a : !A
    %n0 = layout.size %a {mode = 0 : i64} : !A
    %n1 = layout.size %a {mode = 1 : i64} : !A
    %c = layout.cosize %a : !A
    %r = layout.rank %a : !A
    %d = layout.depth %a {mode = 1 : i64} : !A
    %k0 = arith.constant 0 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k5 = arith.constant 5 : index
    %i0 = arith.index_cast %n : index to i64
    %i1 = arith.index_cast %n0 : index to i64
    %i2 = arith.index_cast %n1 : index to i64
    %i3 = arith.index_cast %c : index to i64
    %i4 = arith.index_cast %r : index to i64
    %i5 = arith.index_cast %d : index to i64
    layout.write %i0, %O[%k0] : i64, !N
    layout.write %i1, %O[%c1] : i64, !N
    layout.write %i2, %O[%k2] : i64, !N
    layout.write %i3, %O[%k3] : i64, !N
    layout.write %i4, %O[%k4] : i64, !N
    layout.write %i5, %O[%k5] : i64, !N
  }
  func.return
}
