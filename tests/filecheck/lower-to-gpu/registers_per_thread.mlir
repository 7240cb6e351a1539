// lower-to-gpu writes one value per register of a distributed tensor: a tensor of
// which each thread holds more than MAX_REGISTERS_PER_THREAD (8192) elements is a
// located error, and `distribute` copies a block whose share per thread is that large
// with loops instead of through registers (found by the fuzzer: a 2048x2048 copy by a
// one-thread block ran for minutes and took gigabytes in lower-to-gpu).
// RUN: tilec %s --split-input-file -p default --verify-diagnostics
// RUN: tilec %S/Inputs/one_thread_block.mlir -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %S/Inputs/one_thread_block.mlir -p distribute | filecheck %s --check-prefix=DIST

// EQ: @one_thread: equivalent after 'default'
// DIST-LABEL: func.func @one_thread
// DIST: layout.distribute
// DIST-NOT: layout.load

#b = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(2048,2048):(2048,1)>, gmem>
func.func @too_many_registers(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{each thread would hold 131072 elements of tensor<2048x2048xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>> in registers; lower-to-gpu unrolls at most 8192 per thread: use more threads or smaller tiles}}
    %v = layout.load %a : !G -> tensor<2048x2048xf32, #b>
    layout.store %v, %b : tensor<2048x2048xf32, #b>, !G
  }
  func.return
}
