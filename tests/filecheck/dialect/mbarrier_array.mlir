// An array of mbarriers (one per pipeline stage) and a stage of a staged shared buffer,
// both picked by a run-time index (dialects/layout_tma.py): round trip, printed again
// the same; the TMA load into the stage and the wait on the stage's barrier run on the
// reference executor.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --run cpu | filecheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @staged_ring
// CHECK:      %buf = layout.alloc : !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (3,64,32):(2048,32,1)>, smem>
// CHECK-NEXT: %bars = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
// CHECK:      %s = layout.slice %buf[%i, _, _] : {{.*}} -> !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (64,32):(32,1)>, smem>
// CHECK-NEXT: %b = layout.mbarrier_at %bars[%i] : !layout.mbarriers<3>
// CHECK:      layout.mbarrier_arrive %b {tx = 8192 : i64}
// CHECK-NEXT: layout.tma_load %t, %s, %b
// CHECK-NEXT: layout.mbarrier_wait %b, %c0
// EXEC: @staged_ring on the CPU reference executor (seed 0): ok

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,32):(256,1)>, gmem>
!SS = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (3,64,32):(2048,32,1)>, smem>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (64,32):(32,1)>, smem>
func.func @staged_ring(%src: !layout.ptr<f32, align 16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %g = layout.view %src : !layout.ptr<f32, align 16> -> !G
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %buf = layout.alloc : !SS
    %bars = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
    scf.for %i = %c0 to %c3 step %c1 {
      %s = layout.slice %buf[%i, _, _] : !SS -> !S
      %b = layout.mbarrier_at %bars[%i] : !layout.mbarriers<3>
      %t = layout.tile %g[%i, %i] {tile = array<i64: 64, 32>} : !G -> !T
      layout.mbarrier_arrive %b {tx = 8192 : i64}
      layout.tma_load %t, %s, %b : !T, !S
      layout.mbarrier_wait %b, %c0
    }
  }
  func.return
}
