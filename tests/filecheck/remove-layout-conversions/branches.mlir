// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// A conversion of an scf.if result is rematerialised into both branches when what each
// branch yields is cheaper to have in the target layout (a constant, a splat, a value
// that a branch converted from that layout) than the conversion after the if. The
// condition must be the same for every thread of the block (a conversion moves data
// between threads). Both branches count in full: rematerialising never costs more on
// either path.

// EQ: @if_remat_both: equivalent
// EQ: @if_one_branch_converts: equivalent
// EQ: @if_keeps: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>

// Both branches make their value (a constant, a splat): both now make it in #B.
// CHECK-LABEL: func.func @if_remat_both
// CHECK:         scf.if %{{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:           arith.constant dense<1.500000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         } else {
// CHECK:           layout.splat %{{.*}} : f32 -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @if_remat_both(%q: !layout.ptr<f32>) {
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %f = arith.constant 0.25 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    %r = scf.if %first -> (tensor<32x32xf32, #A>) {
      %k = arith.constant dense<1.5> : tensor<32x32xf32, #A>
      scf.yield %k : tensor<32x32xf32, #A>
    } else {
      %s = layout.splat %f : f32 -> tensor<32x32xf32, #A>
      scf.yield %s : tensor<32x32xf32, #A>
    }
    %w = layout.convert_layout %r : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %w, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// One branch converted a load from #A, the other makes a constant: the if yields #A
// (the load as it is, the constant in #A) and no conversion is left.
// CHECK-LABEL: func.func @if_one_branch_converts
// CHECK:         scf.if %{{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:      %[[X:.*]] = layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:      scf.yield %[[X]]
// CHECK:         } else {
// CHECK-NEXT:      %[[K:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:      scf.yield %[[K]]
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @if_one_branch_converts(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    %r = scf.if %first -> (tensor<32x32xf32, #B>) {
      %x = layout.load %a : !G2 -> tensor<32x32xf32, #A>
      %xb = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      scf.yield %xb : tensor<32x32xf32, #B>
    } else {
      %k = arith.constant dense<0.0> : tensor<32x32xf32, #B>
      scf.yield %k : tensor<32x32xf32, #B>
    }
    %w = layout.convert_layout %r : tensor<32x32xf32, #B> -> tensor<32x32xf32, #A>
    layout.store %w, %a : tensor<32x32xf32, #A>, !G2
  }
  func.return
}

// Both branches load in #A: converting in each branch costs as much as converting
// once after the if on either path, so the conversion stays after the if.
// CHECK-LABEL: func.func @if_keeps
// CHECK:         scf.if
// CHECK-NOT:     layout.convert_layout
// CHECK:         } else {
// CHECK:           scf.yield %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    layout.convert_layout
// CHECK-NEXT:    layout.store
func.func @if_keeps(%p: !layout.ptr<f32>, %p2: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %a2 = layout.view %p2 : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    %r = scf.if %first -> (tensor<32x32xf32, #A>) {
      %x = layout.load %a : !G2 -> tensor<32x32xf32, #A>
      scf.yield %x : tensor<32x32xf32, #A>
    } else {
      %y = layout.load %a2 : !G2 -> tensor<32x32xf32, #A>
      scf.yield %y : tensor<32x32xf32, #A>
    }
    %w = layout.convert_layout %r : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %w, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}
