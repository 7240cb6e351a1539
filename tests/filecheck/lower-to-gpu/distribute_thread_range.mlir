// RUN: not tilec %s -p default -t cuda 2>&1 | filecheck %s
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s --check-prefix=CPU
// Regression (issue 18): the raw thread id of a 64-thread block fed to a 32-thread
// layout. The CPU executor refused it; CUDA compiled it silently (threads 32..63 wrote
// over threads 0..31's elements). CUDA refuses it now, with the fix.

// CHECK: distribute_thread_range.mlir:[[# @LINE + 10]]:5: error: 'layout.distribute': the thread id takes 64 values but the thread layout (4,8):(8,1) has 32 threads (the CPU executor refuses the others too): distribute by the id within a group of 32 threads (tid % 32) or by a thread layout of 64 threads
// CPU: distribute_thread_range.mlir:[[# @LINE + 9]]:5: error: 'layout.distribute': thread id 32 is not below the 32 threads of the thread layout (4,8):(8,1)
!A = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
!F = !layout.tensor<f32, #layout.cute<(2,1):(32,8)>, gmem>
func.func @raw_tid(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %b = layout.view %dst : !layout.ptr<f32> -> !A
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %fa = layout.distribute %a, %t {threads = #layout.cute<(4,8):(8,1)>} : !A -> !F
    %fb = layout.distribute %b, %t {threads = #layout.cute<(4,8):(8,1)>} : !A -> !F
    layout.copy %fa, %fb : !F, !F
  }
  func.return
}
