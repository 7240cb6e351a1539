// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// A conversion yielded by one branch of an scf.if whose other branch yields a constant.
// Alone, it stays in its branch (it runs on that path only, the cost model's choice).
// When another if yields the result, the constant is made in the converted value's
// layout, the if yields that layout, and the two ifs share one conversion.

// EQ: @one_branch: equivalent
// EQ: @two_ifs: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>

// CHECK-LABEL: func.func @one_branch
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:           layout.convert_layout
// CHECK:           arith.constant dense<1.500000e+00>
// CHECK:         }{{$}}
// CHECK-NEXT:    layout.store %[[R]]
func.func @one_branch(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
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
      %z = arith.constant dense<1.5> : tensor<32x32xf32, #B>
      scf.yield %z : tensor<32x32xf32, #B>
    }
    layout.store %r, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// The second if yields the first if's result or a conversion: after the first if is
// rewritten both branches of the second convert from #A and one conversion is left.
// CHECK-LABEL: func.func @two_ifs
// CHECK-COUNT-1: layout.convert_layout
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @two_ifs(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    %second = arith.cmpi eq, %by, %c1 : index
    %r = scf.if %first -> (tensor<32x32xf32, #B>) {
      %x = layout.load %a : !G2 -> tensor<32x32xf32, #A>
      %xb = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      scf.yield %xb : tensor<32x32xf32, #B>
    } else {
      %z = arith.constant dense<0.0> : tensor<32x32xf32, #B>
      scf.yield %z : tensor<32x32xf32, #B>
    }
    %s = scf.if %second -> (tensor<32x32xf32, #B>) {
      %y = layout.load %b : !G2 -> tensor<32x32xf32, #A>
      %yb = layout.convert_layout %y : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      scf.yield %yb : tensor<32x32xf32, #B>
    } else {
      scf.yield %r : tensor<32x32xf32, #B>
    }
    layout.store %s, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}
