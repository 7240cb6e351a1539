// RUN: tilec %s -p lower-convert-layout | filecheck %s
// RUN: tilec %s -p lower-convert-layout --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @in_loop: equivalent after
// A conversion in a loop: the buffer is allocated once at the top of the launch, and a
// barrier keeps the next iteration's write from overtaking this iteration's reads.

#A = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
!G = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>

// CHECK-LABEL: func.func @in_loop
// CHECK:         ^bb0(
// CHECK-NEXT:      %[[S:.*]] = layout.alloc : !layout.tensor<f32, #layout.composed<swizzle<5,0,5> o 0 o (32,32):(32,1)>, smem>
// CHECK:           scf.for
// CHECK:             %[[V:.*]] = layout.load
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:        layout.store %[[V]], %[[S]] {bank_conflicts = 0 : i64}
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:        layout.load %[[S]] {bank_conflicts = 0 : i64}
// CHECK-NOT:     layout.convert_layout
func.func @in_loop(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %init = arith.constant dense<0.0> : tensor<32x32xf32, #B>
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<32x32xf32, #B>) {
      %v = layout.load %a : !G -> tensor<32x32xf32, #A>
      %w = layout.convert_layout %v : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
      %s = arith.addf %acc, %w : tensor<32x32xf32, #B>
      scf.yield %s : tensor<32x32xf32, #B>
    }
    layout.store %r, %b : tensor<32x32xf32, #B>, !G
  }
  func.return
}
