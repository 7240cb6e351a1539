// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p remove-layout-conversions,lower-convert-layout,lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// scf.while over distributed tensors: a value entering `before` and one that
// scf.condition forwards get twins in another layout as scf.for slots do, and the
// ones the loop no longer reads go (a forwarded result becomes its twin's result
// converted after the loop).

// EQ: @while_accumulator: equivalent
// EQ: @while_invariant: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// The accumulator, stored in #B, sums loads in #A: it is carried in #A through
// `before` and `after`, and converted once after the loop.
// CHECK-LABEL: func.func @while_accumulator
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK:         %{{.*}}, %[[R:.*]] = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[Z]]) : (index, tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:       layout.convert_layout
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[W]]
func.func @while_accumulator(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #B>
    %sum, %n = scf.while (%acc = %zero, %i = %c0) : (tensor<32x32xf32, #B>, index) -> (tensor<32x32xf32, #B>, index) {
      %go = arith.cmpi ult, %i, %c4 : index
      scf.condition(%go) %acc, %i : tensor<32x32xf32, #B>, index
    } do {
    ^bb1(%acc2: tensor<32x32xf32, #B>, %j: index):
      %t = layout.tile %a[%j, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %xb = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %s = arith.addf %acc2, %xb : tensor<32x32xf32, #B>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %s, %j1 : tensor<32x32xf32, #B>, index
    }
    layout.store %sum, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// A conversion of a value loaded before the loop moves out of the loop.
// CHECK-LABEL: func.func @while_invariant
// CHECK:         layout.load
// CHECK-NEXT:    layout.convert_layout
// CHECK:         scf.while
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @while_invariant(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !H
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %n = scf.while (%i = %c0) : (index) -> (index) {
      %go = arith.cmpi ult, %i, %c4 : index
      scf.condition(%go) %i : index
    } do {
    ^bb1(%j: index):
      %xb = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %t = layout.tile %b[%j, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      layout.store %xb, %t : tensor<32x32xf32, #B>, !G2
      %j1 = arith.addi %j, %c1 : index
      scf.yield %j1 : index
    }
  }
  func.return
}
