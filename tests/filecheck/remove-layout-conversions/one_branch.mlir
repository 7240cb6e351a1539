// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// A conversion yielded by one branch of an scf.if whose other branch yields a constant
// moves after the if (the constant made again in the unconverted layout, free) when the
// cost model says the program costs less: when another if yields the result and
// converts from the same layout (the two ifs share one conversion), or when a reduction
// of the result needs a smaller conversion. Otherwise it stays in its branch, on the one
// path that runs it (the expected bytes decide).

// EQ: @one_branch: equivalent
// EQ: @two_ifs: equivalent
// EQ: @if_reduce: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>

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

// The result is reduced (max): the if yields the load as it is and the reduction's
// 32 elements are converted instead of the 32x32 tile.
// CHECK-LABEL: func.func @if_reduce
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:       layout.convert_layout
// CHECK:           arith.constant dense<1.500000e+00> : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK:         }{{$}}
// CHECK-NEXT:    %[[M:.*]] = layout.reduce %[[R]]
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[M]] : tensor<32xf32, #layout.slice<{{.*}}> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[W]]
func.func @if_reduce(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !S
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
    %m = layout.reduce %r {axis = 1 : i64, kind = "max"} : tensor<32x32xf32, #B> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #B}>>
    layout.store %m, %b : tensor<32xf32, #layout.slice<{dim = 1, parent = #B}>>, !S
  }
  func.return
}
