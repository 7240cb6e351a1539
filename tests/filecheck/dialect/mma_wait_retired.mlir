// layout.mma_wait {pending = 1} whose value is known complete: S = A B issued
// asynchronously, then O + A B issued after it in the same block, then a wait with one
// group pending. S's group is older than the pending one, so the wait's S is
// complete and may be read (FlashAttention-3's wait for S while P V runs on); O's is
// in flight until the wait with 0. Round trip, and the executor runs it the same
// before and after lowering (wgmma.py: wait_group 1, S's registers passed through it).
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @retired: equivalent after 'lower-to-gpu'

// CHECK-LABEL: func.func @retired
// CHECK:       %s = layout.mma %sa, %sb, %zero {async}
// CHECK-NEXT:  %o = layout.mma %sa, %sb, %acc0 {async}
// CHECK-NEXT:  %w = layout.mma_wait %s {pending = 1 : i64}
// CHECK-NEXT:  %e = arith.addf %w, %w

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @retired(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>, %pd: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %d = layout.view %pd : !layout.ptr<f32, align 16> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    layout.copy %a, %sa : !GA, !SA
    layout.copy %b, %sb : !GB, !SB
    layout.barrier
    %acc0 = layout.load %c : !GC -> !ACC
    %zero = layout.load %d : !GC -> !ACC
    %s = layout.mma %sa, %sb, %zero {async} : !SA, !SB, !ACC
    %o = layout.mma %sa, %sb, %acc0 {async} : !SA, !SB, !ACC
    %w = layout.mma_wait %s {pending = 1 : i64} : !ACC
    %e = arith.addf %w, %w : !ACC
    layout.store %e, %d : !ACC, !GC
    %r = layout.mma_wait %o {pending = 0 : i64} : !ACC
    layout.store %r, %c : !ACC, !GC
  }
  func.return
}
