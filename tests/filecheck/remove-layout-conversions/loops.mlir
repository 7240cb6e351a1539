// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// Loop-carried values: a value that the body converts every iteration is carried in
// the layout that avoids the conversion (a new slot of the scf.for; the old slot goes
// when the body no longer reads it, its result becoming the new slot's result
// converted once after the loop), and in both layouts when the body uses both. Code
// in a loop counts its trip count times, so a conversion moves out of a loop even when
// another one, run once, takes its place.

// EQ: @accumulator: equivalent
// EQ: @both_layouts: equivalent
// EQ: @peeled_prologue: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// The accumulator is stored in #B but summed from loads in #A: it is carried in #A
// and converted once, after the loop.
// CHECK-LABEL: func.func @accumulator
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:       layout.convert_layout
// CHECK:           arith.addf %[[ACC]], %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[W]]
func.func @accumulator(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #B>
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<32x32xf32, #B>) {
      %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %xb = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %n = arith.addf %acc, %xb : tensor<32x32xf32, #B>
      scf.yield %n : tensor<32x32xf32, #B>
    }
    layout.store %sum, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// The value is doubled in #A each iteration and stored in #B each iteration: it is
// carried in both layouts (the doubling is recomputed in #B), and no conversion is
// left in the loop.
// CHECK-LABEL: func.func @both_layouts
// CHECK:         scf.for {{.*}} iter_args(%[[VA:.*]] = %{{.*}}, %[[VB:.*]] = %{{.*}}) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}>, tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:       layout.convert_layout
// CHECK:           layout.store %[[VB]]
// CHECK-NOT:       layout.convert_layout
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    layout.store %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
func.func @both_layouts(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !H
  %c = layout.view %r : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %k = layout.splat %two : f32 -> tensor<32x32xf32, #A>
    %v = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<32x32xf32, #A>) {
      %vb = layout.convert_layout %acc : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %t = layout.tile %b[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      layout.store %vb, %t : tensor<32x32xf32, #B>, !G2
      %n = arith.mulf %acc, %k : tensor<32x32xf32, #A>
      scf.yield %n : tensor<32x32xf32, #A>
    }
    layout.store %v, %c : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// A peeled prologue: the first tile is loaded and converted in an scf.if before the
// loop (a zero when there is no tile), the loop converts each further tile. Carried in
// #A, the branches yield #A (the load as it is, the zero made in #A) and one
// conversion is left, after the loop.
// CHECK-LABEL: func.func @peeled_prologue
// CHECK:         scf.if
// CHECK-NOT:     layout.convert_layout
// CHECK:         scf.for
// CHECK-NOT:     layout.convert_layout
// CHECK:           scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[W]]
// CHECK-NOT:     layout.convert_layout
func.func @peeled_prologue(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %has = arith.cmpi eq, %bx, %c0 : index
    %first = scf.if %has -> (tensor<32x32xf32, #B>) {
      %t0 = layout.tile %a[%c0, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x0 = layout.load %t0 : !G2 -> tensor<32x32xf32, #A>
      %x0b = layout.convert_layout %x0 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      scf.yield %x0b : tensor<32x32xf32, #B>
    } else {
      %z = arith.constant dense<0.0> : tensor<32x32xf32, #B>
      scf.yield %z : tensor<32x32xf32, #B>
    }
    %sum = scf.for %i = %c1 to %c4 step %c1 iter_args(%acc = %first) -> (tensor<32x32xf32, #B>) {
      %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
      %x = layout.load %t : !G2 -> tensor<32x32xf32, #A>
      %xb = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %n = arith.addf %acc, %xb : tensor<32x32xf32, #B>
      scf.yield %n : tensor<32x32xf32, #B>
    }
    layout.store %sum, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}
