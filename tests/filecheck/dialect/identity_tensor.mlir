// layout.make_identity_tensor / layout.read_coord (CuTe's make_identity_tensor and
// tCcC(i)): round trip (verifier errors: invalid_identity_tensor.mlir; lowering:
// lower-to-gpu/identity_tensor.mlir). An identity tensor is a view in the space
// `coord` whose elements are coordinates; view ops take it as any view.
// RUN: tilec %s | tilec | filecheck %s

// CHECK-LABEL: func.func @identity
// CHECK: %c = layout.make_identity_tensor : !layout.tensor<tuple<index, index>, #layout.cute<(1000,1003):(1,1000)>, coord>
// CHECK: %d = layout.make_identity_tensor(%m, %n) : !layout.tensor<tuple<index, index>, #layout.cute<(?,?):(1,?)>, coord>
// CHECK: %e = layout.make_identity_tensor : !layout.tensor<tuple<index>, #layout.cute<77:1>, coord>
// CHECK: layout.tile %c[%bx, %by] {tile = array<i64: 32, 32>} : !layout.tensor<tuple<index, index>, #layout.cute<(1000,1003):(1,1000)>, coord> -> !layout.tensor<tuple<index, index>, #layout.cute<(32,32):(1,1000)>, coord, masked>
// CHECK: layout.distribute %t, %tid {threads = #layout.cute<(8,4):(4,1)>} : {{.*}} -> !layout.tensor<tuple<index, index>, #layout.cute<(4,8):(8,4000)>, coord, masked>
// CHECK: %i, %j = layout.read_coord %f[%c0] : !layout.tensor<tuple<index, index>, #layout.cute<(4,8):(8,4000)>, coord, masked> -> index, index
// CHECK: %k, %l = layout.read_coord %f[%c0, %c1] : {{.*}} -> index, index
// CHECK: layout.tile %d[%bx, %by] {tile = array<i64: 16, 8>} : {{.*}} -> !layout.tensor<tuple<index, index>, #layout.cute<(16,8):(1,?)>, coord, masked>
// CHECK: layout.slice %c[_, %by] : {{.*}} -> !layout.tensor<tuple<index, index>, #layout.cute<1000:1>, coord>
// CHECK: %p, %q = layout.read_coord %s[%tid]
// CHECK: %x = layout.read_coord %e[%c1] : !layout.tensor<tuple<index>, #layout.cute<77:1>, coord> -> index
!C = !layout.tensor<tuple<index, index>, #layout.cute<(1000,1003):(1,1000)>, coord>
!CT = !layout.tensor<tuple<index, index>, #layout.cute<(32,32):(1,1000)>, coord, masked>
!CF = !layout.tensor<tuple<index, index>, #layout.cute<(4,8):(8,4000)>, coord, masked>
!D = !layout.tensor<tuple<index, index>, #layout.cute<(?,?):(1,?)>, coord>
!DT = !layout.tensor<tuple<index, index>, #layout.cute<(16,8):(1,?)>, coord, masked>
func.func @identity(%m: index, %n: index) {
  %c = layout.make_identity_tensor : !C
  %d = layout.make_identity_tensor(%m, %n) : !D
  %e = layout.make_identity_tensor : !layout.tensor<tuple<index>, #layout.cute<77:1>, coord>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.tile %c[%bx, %by] {tile = array<i64: 32, 32>} : !C -> !CT
    %f = layout.distribute %t, %tid {threads = #layout.cute<(8,4):(4,1)>} : !CT -> !CF
    %i, %j = layout.read_coord %f[%c0] : !CF -> index, index
    %k, %l = layout.read_coord %f[%c0, %c1] : !CF -> index, index
    %dt = layout.tile %d[%bx, %by] {tile = array<i64: 16, 8>} : !D -> !DT
    %s = layout.slice %c[_, %by] : !C -> !layout.tensor<tuple<index, index>, #layout.cute<1000:1>, coord>
    %p, %q = layout.read_coord %s[%tid] : !layout.tensor<tuple<index, index>, #layout.cute<1000:1>, coord> -> index, index
    %x = layout.read_coord %e[%c1] : !layout.tensor<tuple<index>, #layout.cute<77:1>, coord> -> index
  }
  func.return
}
