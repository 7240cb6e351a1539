// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// Conversions between layouts that are equal as linear layouts disappear; chains of
// conversions fold into one conversion or none.

// EQ: @identical: equivalent
// EQ: @equivalent_slice: equivalent
// EQ: @equivalent_through_math: equivalent
// EQ: @chain_back: equivalent
// EQ: @chain_three: equivalent

#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#S = #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>}>
#V = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#C = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
!G1 = !layout.tensor<f32, #layout.cute<(512):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>

// CHECK-LABEL: func.func @identical
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[V]]
func.func @identical(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G1 -> tensor<512xf32, #V>
    %w = layout.convert_layout %v : tensor<512xf32, #V> -> tensor<512xf32, #V>
    layout.store %w, %b : tensor<512xf32, #V>, !G1
  }
  func.return
}

// A blocked layout and its slice twin place every element identically.
// CHECK-LABEL: func.func @equivalent_slice
// CHECK:         %[[V:.*]] = layout.load {{.*}} -> tensor<512xf32, #layout.slice
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[V]], %{{.*}} : tensor<512xf32, #layout.slice
func.func @equivalent_slice(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G1 -> tensor<512xf32, #S>
    %w = layout.convert_layout %v : tensor<512xf32, #S> -> tensor<512xf32, #R>
    layout.store %w, %b : tensor<512xf32, #R>, !G1
  }
  func.return
}

// An identity conversion feeding elementwise math: the math moves to the source layout
// and the identity reaches the store, which takes any layout.
// CHECK-LABEL: func.func @equivalent_through_math
// CHECK:         %[[V:.*]] = layout.load {{.*}} -> tensor<512xf32, #layout.slice
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[E:.*]] = arith.addf %[[V]], %[[V]] : tensor<512xf32, #layout.slice
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[E]]
func.func @equivalent_through_math(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G1 -> tensor<512xf32, #S>
    %w = layout.convert_layout %v : tensor<512xf32, #S> -> tensor<512xf32, #R>
    %e = arith.addf %w, %w : tensor<512xf32, #R>
    layout.store %e, %b : tensor<512xf32, #R>, !G1
  }
  func.return
}

// A -> B -> A is no conversion at all.
// CHECK-LABEL: func.func @chain_back
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[V]]
func.func @chain_back(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %x = layout.convert_layout %w : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
    layout.store %x, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// A -> B -> C is one conversion A -> C.
// CHECK-LABEL: func.func @chain_three
// CHECK:         %[[V:.*]] = layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[V]] : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}> -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[W]]
func.func @chain_three(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %x = layout.convert_layout %w : tensor<32x32xf32, #B> -> tensor<32x32xf32, #C>
    layout.store %x, %b : tensor<32x32xf32, #C>, !G2
  }
  func.return
}
