// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p remove-layout-conversions,lower-convert-layout,lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// A conversion yielded by an scf.if inside a loop whose slot carries the converted
// value: the values computed from it (the if's result, elementwise ops, the loop slot)
// are made in the loaded layout instead, and one conversion follows the loop (Triton's
// loop_if). Also through nested loops, an if nested in an if and an scf.while.

// EQ: @loop_if: equivalent
// EQ: @loop_carries_if: equivalent
// EQ: @nested_loops: equivalent
// EQ: @if_in_if: equivalent
// EQ: @while_if: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// Triton's loop_if: from the second iteration on a tile is loaded in #B and converted
// to the accumulator's #A. The loop carries #B (its zero made in #B), the if yields the
// load as it is, and the sum is converted once, after the loop.
// CHECK-LABEL: func.func @loop_if
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:           %[[X:.*]] = scf.if %{{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:             %[[L:.*]] = layout.load
// CHECK-NEXT:        scf.yield %[[L]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[ACC]]
// CHECK-NEXT:      }
// CHECK-NEXT:      arith.addf %[[ACC]], %[[X]] : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    layout.store %[[W]]
// CHECK-NOT:     layout.convert_layout
func.func @loop_if(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<32x32xf32, #A>) {
      %gt = arith.cmpi sgt, %i, %c0 : index
      %r = scf.if %gt -> (tensor<32x32xf32, #A>) {
        %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
        %x = layout.load %t : !G2 -> tensor<32x32xf32, #B>
        %xa = layout.convert_layout %x : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
        scf.yield %xa : tensor<32x32xf32, #A>
      } else {
        scf.yield %acc : tensor<32x32xf32, #A>
      }
      %n = arith.addf %acc, %r : tensor<32x32xf32, #A>
      scf.yield %n : tensor<32x32xf32, #A>
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// The loop carries the if's result itself (the last tile loaded so far, scaled).
// CHECK-LABEL: func.func @loop_carries_if
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[R:.*]] = scf.for {{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:       layout.convert_layout
// CHECK:           scf.yield %r :
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    layout.store %[[W]]
func.func @loop_carries_if(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %init = layout.splat %half : f32 -> tensor<32x32xf32, #A>
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %init) -> (tensor<32x32xf32, #A>) {
      %odd = arith.remui %i, %c2 : index
      %take = arith.cmpi eq, %odd, %c1 : index
      %r = scf.if %take -> (tensor<32x32xf32, #A>) {
        %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
        %x = layout.load %t : !G2 -> tensor<32x32xf32, #B>
        %xa = layout.convert_layout %x : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
        %k = layout.splat %half : f32 -> tensor<32x32xf32, #A>
        %y = arith.mulf %xa, %k : tensor<32x32xf32, #A>
        scf.yield %y : tensor<32x32xf32, #A>
      } else {
        scf.yield %v : tensor<32x32xf32, #A>
      }
      scf.yield %r : tensor<32x32xf32, #A>
    }
    layout.store %last, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// The if is in an inner loop: both loops carry #B and the conversion follows the outer.
// CHECK-LABEL: func.func @nested_loops
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[R:.*]] = scf.for {{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:           scf.for {{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:       layout.convert_layout
// CHECK:             scf.yield %r :
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:      scf.yield %s :
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    layout.store %[[W]]
func.func @nested_loops(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %sum = scf.for %j = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<32x32xf32, #A>) {
      %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc2 = %acc) -> (tensor<32x32xf32, #A>) {
        %ne = arith.cmpi ne, %i, %j : index
        %r = scf.if %ne -> (tensor<32x32xf32, #A>) {
          %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
          %x = layout.load %t : !G2 -> tensor<32x32xf32, #B>
          %xa = layout.convert_layout %x : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
          %y = arith.addf %acc2, %xa : tensor<32x32xf32, #A>
          scf.yield %y : tensor<32x32xf32, #A>
        } else {
          scf.yield %acc2 : tensor<32x32xf32, #A>
        }
        scf.yield %r : tensor<32x32xf32, #A>
      }
      scf.yield %s : tensor<32x32xf32, #A>
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// The conversion is yielded by an if nested in an if in the loop.
// CHECK-LABEL: func.func @if_in_if
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[R:.*]] = scf.for {{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:       layout.convert_layout
// CHECK:           scf.yield %n :
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    layout.store %[[W]]
func.func @if_in_if(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<32x32xf32, #A>) {
      %gt = arith.cmpi ugt, %i, %c0 : index
      %r = scf.if %gt -> (tensor<32x32xf32, #A>) {
        %lt = arith.cmpi ult, %i, %c2 : index
        %r2 = scf.if %lt -> (tensor<32x32xf32, #A>) {
          %t = layout.tile %a[%i, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
          %x = layout.load %t : !G2 -> tensor<32x32xf32, #B>
          %xa = layout.convert_layout %x : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
          scf.yield %xa : tensor<32x32xf32, #A>
        } else {
          %z = arith.constant dense<2.0> : tensor<32x32xf32, #A>
          scf.yield %z : tensor<32x32xf32, #A>
        }
        scf.yield %r2 : tensor<32x32xf32, #A>
      } else {
        scf.yield %acc : tensor<32x32xf32, #A>
      }
      %n = arith.addf %acc, %r : tensor<32x32xf32, #A>
      scf.yield %n : tensor<32x32xf32, #A>
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// In an scf.while: the value enters `before`, is forwarded to `after` and to the
// result; all three carry #B and the result is converted after the loop.
// CHECK-LABEL: func.func @while_if
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[R:.*]], %{{.*}} = scf.while ({{.*}}) : (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]{{.*}}>, index) -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:       layout.convert_layout
// CHECK:           scf.yield %s, %j1 :
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]] : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    layout.store %[[W]]
func.func @while_if(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<32x32xf32, #A>
    %sum, %n = scf.while (%acc = %zero, %i = %c0) : (tensor<32x32xf32, #A>, index) -> (tensor<32x32xf32, #A>, index) {
      %go = arith.cmpi ult, %i, %c4 : index
      scf.condition(%go) %acc, %i : tensor<32x32xf32, #A>, index
    } do {
    ^bb1(%acc2: tensor<32x32xf32, #A>, %j: index):
      %gt = arith.cmpi ugt, %j, %c0 : index
      %r = scf.if %gt -> (tensor<32x32xf32, #A>) {
        %t = layout.tile %a[%j, %c0] {tile = array<i64: 32, 32>} : !H -> !G2
        %x = layout.load %t : !G2 -> tensor<32x32xf32, #B>
        %xa = layout.convert_layout %x : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
        scf.yield %xa : tensor<32x32xf32, #A>
      } else {
        scf.yield %acc2 : tensor<32x32xf32, #A>
      }
      %s = arith.addf %acc2, %r : tensor<32x32xf32, #A>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %s, %j1 : tensor<32x32xf32, #A>, index
    }
    layout.store %sum, %b : tensor<32x32xf32, #A>, !G2
  }
  func.return
}
