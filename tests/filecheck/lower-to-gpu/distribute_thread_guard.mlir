// RUN: tilec %s -p default -t cuda | filecheck %s
// A thread id whose range the compiler cannot bound (tid + bx) fed to a 32-thread
// layout: threads past the layout own nothing, as the CPU executor refuses them; CUDA
// guards every access by `id < 32`.

// CHECK: const int [[ID:t(_[0-9]+)?]] = tid + bx;
// CHECK: const bool [[P:p(_[0-9]+)?]] = [[ID]] < 32;
// CHECK: if ([[P]]) {
// CHECK: = src[
!A = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
!F = !layout.tensor<f32, #layout.cute<(2,1):(32,8)>, gmem>
func.func @raw_tid(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %b = layout.view %dst : !layout.ptr<f32> -> !A
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    %m = arith.constant 48 : index
    %l = arith.addi %t, %bx : index
    %fa = layout.distribute %a, %l {threads = #layout.cute<(4,8):(8,1)>} : !A -> !F
    %fb = layout.distribute %b, %l {threads = #layout.cute<(4,8):(8,1)>} : !A -> !F
    layout.copy %fa, %fb : !F, !F
  }
  func.return
}
