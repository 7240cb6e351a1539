// layout.mma_wait {pending = 1} of a loop-carried accumulator after one mma of the
// trip: the carried value's group (if any) was committed before the trip, so it is
// older than the one pending: complete, readable (the block-scaled GEMM passes the
// partial it carries from the previous trip through such a wait, after the trip's
// first wgmma, api/gemm_programs.py). Each trip: T = A B issued, the carried C waited
// for with one group pending and added into S, then T waited for with 0 and carried.
// Round trip, and the executor runs it the same before and after lowering.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @carried: equivalent after 'lower-to-gpu'

// CHECK-LABEL: func.func @carried
// CHECK:       %t = layout.mma %sa, %sb, %zero {async}
// CHECK-NEXT:  %w = layout.mma_wait %cin {pending = 1 : i64}
// CHECK-NEXT:  %s2 = arith.addf %sin, %w
// CHECK-NEXT:  %done = layout.mma_wait %t {pending = 0 : i64}
// CHECK-NEXT:  scf.yield %s2, %done

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @carried(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>, %pd: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %d = layout.view %pd : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    layout.copy %a, %sa : !GA, !SA
    layout.copy %b, %sb : !GB, !SB
    layout.barrier
    %acc0 = layout.load %c : !GC -> !ACC
    %zero = layout.load %d : !GC -> !ACC
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%sin = %acc0, %cin = %zero) -> (!ACC, !ACC) {
      %t = layout.mma %sa, %sb, %zero {async} : !SA, !SB, !ACC
      %w = layout.mma_wait %cin {pending = 1 : i64} : !ACC
      %s2 = arith.addf %sin, %w : !ACC
      %done = layout.mma_wait %t {pending = 0 : i64} : !ACC
      scf.yield %s2, %done : !ACC, !ACC
    }
    %e = arith.addf %r#0, %r#1 : !ACC
    layout.store %e, %c : !ACC, !GC
  }
  func.return
}
