// RUN: tilec %s --run cpu | filecheck %s --check-prefix=CPU
// RUN: tilec %s -p default --check-equivalence | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Regression (issue 18): the seeds' over-provisioned grid, 32x8 data and a (4,4) grid of
// 8x8 blocks. The masked tiles of blocks by >= 1 lie wholly outside the tensor: the CPU
// executor refused them ("tile coordinate 1 of mode 1 is out of range") and CUDA read
// and wrote them without a guard. They are empty tiles now, at both levels: mode 1 (one
// tile of 8, 4 blocks) is bounds-checked; mode 0 (4 tiles, 4 blocks) is not.

// CPU: // @over on the CPU reference executor (seed 0): ok
// CPU: %q: 256 x float32 (output) {{.*}}every element written
// CHECK: // @over: equivalent after 'default'
// CUDA: const int [[BY:t_[0-9]+]] = by * 8;
// CUDA: const int [[END:t_[0-9]+]] = [[BY]] + 7;
// CUDA: const bool [[P:p_[0-9]+]] = [[END]] < 8;
// CUDA: if ([[P]]) {
// CUDA-NOT: bx * 8 + {{.*}} < 32
!G = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>
func.func @over(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.tile %a[%bx, %by] {tile = array<i64: 8, 8>} : !G -> !T
    %u = layout.tile %b[%bx, %by] {tile = array<i64: 8, 8>} : !G -> !T
    layout.copy %t, %u : !T, !T
  }
  func.return
}
