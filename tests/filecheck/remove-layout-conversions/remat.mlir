// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// Cheap producers (constants, splats, aranges, elementwise math) are recomputed in the
// layout a conversion asks for when the cost model says that is cheaper than moving the
// elements; loads and stores keep their layouts and are never duplicated.

// EQ: @constant: equivalent
// EQ: @splat: equivalent
// EQ: @arange: equivalent
// EQ: @one_elementwise: equivalent
// EQ: @several_elementwise: equivalent
// EQ: @store_anchor: equivalent
// EQ: @cost_remat: equivalent
// EQ: @cost_keeps: equivalent
// EQ: @expand_broadcast: equivalent

#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#V = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G1 = !layout.tensor<f32, #layout.cute<(512):(1)>, gmem>
!I1 = !layout.tensor<i32, #layout.cute<(512):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!I2 = !layout.tensor<i32, #layout.cute<(32,32):(32,1)>, gmem>

// CHECK-LABEL: func.func @constant
// CHECK:         %[[X:.*]] = layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         %[[K:.*]] = arith.constant dense<2.500000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         arith.addf %[[K]], %[[X]]
func.func @constant(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G2 -> tensor<32x32xf32, #B>
    %k = arith.constant dense<2.5> : tensor<32x32xf32, #A>
    %kb = layout.convert_layout %k : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %s = arith.addf %kb, %x : tensor<32x32xf32, #B>
    layout.store %s, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// CHECK-LABEL: func.func @splat
// CHECK:         %[[F:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         %[[X:.*]] = layout.load
// CHECK:         %[[K:.*]] = layout.splat %[[F]] : f32 -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         arith.mulf %[[K]], %[[X]]
func.func @splat(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  %f = arith.constant 3.0 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G2 -> tensor<32x32xf32, #B>
    %k = layout.splat %f : f32 -> tensor<32x32xf32, #A>
    %kb = layout.convert_layout %k : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %s = arith.mulf %kb, %x : tensor<32x32xf32, #B>
    layout.store %s, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// An arange, and the sum of it with itself, are recomputed in the load's layout.
// CHECK-LABEL: func.func @arange
// CHECK:         %[[X:.*]] = layout.load {{.*}} -> tensor<512xi32, #layout.blocked<{sizePerThread = [1]
// CHECK:         %[[I:.*]] = layout.arange {{.*}} : tensor<512xi32, #layout.blocked<{sizePerThread = [1]
// CHECK:         %[[F:.*]] = arith.addi %[[I]], %[[I]] : tensor<512xi32, #layout.blocked<{sizePerThread = [1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         arith.addi %[[X]], %[[F]]
func.func @arange(%p: !layout.ptr<i32>, %q: !layout.ptr<i32>) {
  %a = layout.view %p : !layout.ptr<i32> -> !I1
  %b = layout.view %q : !layout.ptr<i32> -> !I1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !I1 -> tensor<512xi32, #R>
    %i = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #V>
    %f = arith.addi %i, %i : tensor<512xi32, #V>
    %fr = layout.convert_layout %f : tensor<512xi32, #V> -> tensor<512xi32, #R>
    %s = arith.addi %x, %fr : tensor<512xi32, #R>
    layout.store %s, %b : tensor<512xi32, #R>, !I1
  }
  func.return
}

// Math between a conversion and its inverse runs in the loaded layout.
// CHECK-LABEL: func.func @one_elementwise
// CHECK:         %[[V:.*]] = layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[N:.*]] = arith.negf %[[V]] : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[N]]
func.func @one_elementwise(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %n = arith.negf %w : tensor<32x32xf32, #B>
    %x = layout.convert_layout %n : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
    layout.store %x, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// CHECK-LABEL: func.func @several_elementwise
// CHECK:         %[[V:.*]] = layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     layout.convert_layout
// CHECK:         arith.negf %[[V]] : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK:         arith.mulf {{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK:         arith.addf {{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store
func.func @several_elementwise(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %k = arith.constant dense<1.0> : tensor<32x32xf32, #B>
    %n = arith.negf %w : tensor<32x32xf32, #B>
    %m = arith.mulf %n, %w : tensor<32x32xf32, #B>
    %s = arith.addf %m, %k : tensor<32x32xf32, #B>
    %x = layout.convert_layout %s : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
    layout.store %x, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// The loaded value is also stored in its own layout: the load stays once, both stores
// keep their layouts, and the conversion between them stays.
// CHECK-LABEL: func.func @store_anchor
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NOT:     layout.load
// CHECK:         layout.store %[[V]], %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK:         %[[W:.*]] = layout.convert_layout %[[V]]
// CHECK:         layout.store %[[W]], %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
func.func @store_anchor(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c = layout.view %r : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    layout.store %v, %b : tensor<32x32xf32, #A>, !G2
    %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %w, %c : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// Recomputing one multiplication (its result is also stored, so it stays) costs less
// than a shared-memory conversion: the product is computed in both layouts.
// CHECK-LABEL: func.func @cost_remat
// CHECK-DAG:     arith.mulf {{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-DAG:     arith.mulf {{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @cost_remat(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c = layout.view %r : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.5 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %k = layout.splat %f : f32 -> tensor<32x32xf32, #A>
    %e = arith.mulf %k, %k : tensor<32x32xf32, #A>
    layout.store %e, %b : tensor<32x32xf32, #A>, !G2
    %x = layout.load %a : !G2 -> tensor<32x32xf32, #B>
    %eb = layout.convert_layout %e : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %s = arith.addf %eb, %x : tensor<32x32xf32, #B>
    layout.store %s, %c : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// Recomputing three products that stay alive (each is stored) and converting the load
// they start from costs more than the one conversion: it stays.
// CHECK-LABEL: func.func @cost_keeps
// CHECK:         layout.load
// CHECK-NOT:     layout.load
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:         %[[E3:.*]] = arith.mulf
// CHECK:         layout.convert_layout %[[E3]]
// CHECK-NOT:     arith.mulf
// CHECK:         func.return
func.func @cost_keeps(%p: !layout.ptr<f32>, %q0: !layout.ptr<f32>, %q1: !layout.ptr<f32>, %q2: !layout.ptr<f32>, %q3: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b0 = layout.view %q0 : !layout.ptr<f32> -> !G2
  %b1 = layout.view %q1 : !layout.ptr<f32> -> !G2
  %b2 = layout.view %q2 : !layout.ptr<f32> -> !G2
  %b3 = layout.view %q3 : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %e1 = arith.mulf %v, %v : tensor<32x32xf32, #A>
    layout.store %e1, %b0 : tensor<32x32xf32, #A>, !G2
    %e2 = arith.addf %e1, %v : tensor<32x32xf32, #A>
    layout.store %e2, %b1 : tensor<32x32xf32, #A>, !G2
    %e3 = arith.mulf %e2, %e2 : tensor<32x32xf32, #A>
    layout.store %e3, %b2 : tensor<32x32xf32, #A>, !G2
    %w = layout.convert_layout %e3 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %w, %b3 : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// An arange, expanded and broadcast to two dimensions, is rebuilt in the target layout
// (the arange in the slice of it).
// CHECK-LABEL: func.func @expand_broadcast
// CHECK:         %[[X:.*]] = layout.load
// CHECK:         %[[I:.*]] = layout.arange {{.*}} : tensor<32xi32, #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         %[[E:.*]] = layout.expand_dims %[[I]] {{.*}} -> tensor<1x32xi32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         %[[B:.*]] = layout.broadcast %[[E]] {{.*}} -> tensor<32x32xi32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         arith.addi %[[B]], %[[X]]
func.func @expand_broadcast(%p: !layout.ptr<i32>, %q: !layout.ptr<i32>) {
  %a = layout.view %p : !layout.ptr<i32> -> !I2
  %b = layout.view %q : !layout.ptr<i32> -> !I2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !I2 -> tensor<32x32xi32, #B>
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #layout.slice<{dim = 0, parent = #A}>>
    %e = layout.expand_dims %i {axis = 0 : i64} : tensor<32xi32, #layout.slice<{dim = 0, parent = #A}>> -> tensor<1x32xi32, #A>
    %bc = layout.broadcast %e : tensor<1x32xi32, #A> -> tensor<32x32xi32, #A>
    %c = layout.convert_layout %bc : tensor<32x32xi32, #A> -> tensor<32x32xi32, #B>
    %s = arith.addi %c, %x : tensor<32x32xi32, #B>
    layout.store %s, %b : tensor<32x32xi32, #B>, !I2
  }
  func.return
}
