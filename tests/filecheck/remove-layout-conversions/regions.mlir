// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// Conversions and reductions, loops and branches.

// EQ: @before_reduce: equivalent
// EQ: @before_reduce_add: equivalent
// EQ: @after_reduce: equivalent
// EQ: @loop_carried: equivalent
// EQ: @loop_invariant: equivalent
// EQ: @if_branches: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#C = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#SA = #layout.slice<{dim = 1, parent = #A}>
#SC = #layout.slice<{dim = 1, parent = #C}>
!G1 = !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!H1 = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
!H2 = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// A conversion before a reduction moves after it: 128 elements move instead of 4096
// (max is exact in any order).
// CHECK-LABEL: func.func @before_reduce
// CHECK:         %[[V:.*]] = layout.load {{.*}} -> tensor<128x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[R:.*]] = layout.reduce %[[V]] {{.*}} -> tensor<128xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : tensor<128xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 4]{{.*}} -> tensor<128xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 1]
// CHECK-NEXT:    layout.store %[[W]]
func.func @before_reduce(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H2
  %b = layout.view %q : !layout.ptr<f32> -> !H1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H2 -> tensor<128x32xf32, #A>
    %w = layout.convert_layout %v : tensor<128x32xf32, #A> -> tensor<128x32xf32, #C>
    %r = layout.reduce %w {axis = 1 : i64, kind = "max"} : tensor<128x32xf32, #C> -> tensor<128xf32, #SC>
    layout.store %r, %b : tensor<128xf32, #SC>, !H1
  }
  func.return
}

// A float sum in another layout adds in another order: without reassociate=true the
// conversion stays before the reduction.
// CHECK-LABEL: func.func @before_reduce_add
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[V]]
// CHECK-NEXT:    layout.reduce %[[W]]
func.func @before_reduce_add(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H2
  %b = layout.view %q : !layout.ptr<f32> -> !H1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H2 -> tensor<128x32xf32, #A>
    %w = layout.convert_layout %v : tensor<128x32xf32, #A> -> tensor<128x32xf32, #C>
    %r = layout.reduce %w {axis = 1 : i64, kind = "add"} : tensor<128x32xf32, #C> -> tensor<128xf32, #SC>
    layout.store %r, %b : tensor<128xf32, #SC>, !H1
  }
  func.return
}

// A conversion after a reduction stays there.
// CHECK-LABEL: func.func @after_reduce
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NEXT:    %[[R:.*]] = layout.reduce %[[V]]
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]]
// CHECK-NEXT:    layout.store %[[W]]
func.func @after_reduce(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H2
  %b = layout.view %q : !layout.ptr<f32> -> !H1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H2 -> tensor<128x32xf32, #A>
    %r = layout.reduce %v {axis = 1 : i64, kind = "max"} : tensor<128x32xf32, #A> -> tensor<128xf32, #SA>
    %w = layout.convert_layout %r : tensor<128xf32, #SA> -> tensor<128xf32, #SC>
    layout.store %w, %b : tensor<128xf32, #SC>, !H1
  }
  func.return
}

// The accumulator is converted on entry to the body and back before the yield: it is
// carried in the body's layout, the initial value is built in it, and one conversion
// follows the loop.
// CHECK-LABEL: func.func @loop_carried
// CHECK:         %[[K:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         %[[L:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[K]]) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[S:.*]] = arith.addf %[[ACC]], %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    scf.yield %[[S]]
// CHECK:         %[[O:.*]] = layout.convert_layout %[[L]]
// CHECK-NEXT:    layout.store %[[O]]
func.func @loop_carried(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %init = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<32x32xf32, #A>) {
      %x = layout.load %a : !G2 -> tensor<32x32xf32, #B>
      %ca = layout.convert_layout %acc : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %s = arith.addf %ca, %x : tensor<32x32xf32, #B>
      %back = layout.convert_layout %s : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
      scf.yield %back : tensor<32x32xf32, #A>
    }
    layout.store %r, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// A conversion of a value defined before the loop is hoisted above it.
// CHECK-LABEL: func.func @loop_invariant
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[V]]
// CHECK-NEXT:    scf.for
// CHECK-NOT:     layout.convert_layout
// CHECK:         scf.yield
func.func @loop_invariant(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %init = arith.constant dense<0.0> : tensor<32x32xf32, #B>
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<32x32xf32, #B>) {
      %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %s = arith.addf %acc, %w : tensor<32x32xf32, #B>
      scf.yield %s : tensor<32x32xf32, #B>
    }
    layout.store %r, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// Both branches yield a converted value: the if yields the values, one conversion
// follows it (and folds into the store's conversion back).
// CHECK-LABEL: func.func @if_branches
// CHECK:         scf.if %{{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     layout.convert_layout
// CHECK:         } else {
// CHECK-NOT:     layout.convert_layout
// CHECK:         }
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @if_branches(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %cond = arith.cmpi eq, %bx, %c0 : index
    %r = scf.if %cond -> (tensor<32x32xf32, #B>) {
      %n = arith.negf %v : tensor<32x32xf32, #A>
      %nb = layout.convert_layout %n : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      scf.yield %nb : tensor<32x32xf32, #B>
    } else {
      %m = arith.mulf %v, %v : tensor<32x32xf32, #A>
      %mb = layout.convert_layout %m : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      scf.yield %mb : tensor<32x32xf32, #B>
    }
    %back = layout.convert_layout %r : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
    layout.store %back, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}
