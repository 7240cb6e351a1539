// cuda.opaque inside a launch: a scalar passed through unchanged (the reference
// executor runs the program before and after the pipeline: equivalent), printed as a
// copy through an empty `asm volatile` that NVVM cannot see through ("+r" for 32-bit
// values and 32-bit indices, "+l" for 64-bit ones), so a loop's invariant address is
// computed once and kept in a register rather than recomputed on every trip.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @kept_address: equivalent after 'default'
// GPU-LABEL: "gpu.func"
// GPU:         cuda.opaque %{{.*}} : index
// GPU:         cuda.opaque %{{.*}} : i64

// CHECK-LABEL: kept_address_kernel(
// CHECK:         int [[AT:t_[0-9]+]] = {{t[_0-9]*}};
// CHECK-NEXT:    asm volatile("" : "+r"([[AT]]));
// CHECK:         long long [[W:t_[0-9]+]] = {{t_[0-9]+}};
// CHECK-NEXT:    asm volatile("" : "+l"([[W]]));
// CHECK:         for (int
// CHECK:           = a[{{t_[0-9]+}}];
!A = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
!W = !layout.tensor<i64, #layout.cute<32:1>, gmem>
func.func @kept_address(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>, %w: !layout.ptr<i64>) {
  %A = layout.view %a : !layout.ptr<f32> -> !A
  %B = layout.view %b : !layout.ptr<f32> -> !A
  %Wv = layout.view %w : !layout.ptr<i64> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c31 = arith.constant 31 : index
    %col = arith.xori %tid, %c31 : index
    %at = cuda.opaque %col : index
    %t64 = arith.index_cast %tid : index to i64
    %w64 = cuda.opaque %t64 : i64
    layout.write %w64, %Wv[%tid] : i64, !W
    scf.for %r = %c0 to %c4 step %c1 {
      %x = layout.read %A[%r, %at] : !A -> f32
      layout.write %x, %B[%r, %tid] : f32, !A
    }
  }
  func.return
}
