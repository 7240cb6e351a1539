// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// A value carried in two layouts: a conversion of one loop result after the loop into
// the other slot's layout is that slot's result (equal start, equal yield), so no
// conversion is left after the loop (the start is converted once, before it).

// EQ: @twin_after_loop: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// CHECK-LABEL: func.func @twin_after_loop
// CHECK:         %[[V:.*]], %[[W:.*]] = scf.for
// CHECK-NOT:     layout.convert_layout
// CHECK:         }{{$}}
// CHECK-NEXT:    layout.store %[[V]]
// CHECK-NEXT:    layout.store %[[W]]
func.func @twin_after_loop(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>, %s: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !H
  %c = layout.view %r : !layout.ptr<f32> -> !G2
  %d = layout.view %s : !layout.ptr<f32> -> !G2
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
    %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %v, %c : tensor<32x32xf32, #A>, !G2
    layout.store %w, %d : tensor<32x32xf32, #B>, !G2
  }
  func.return
}
