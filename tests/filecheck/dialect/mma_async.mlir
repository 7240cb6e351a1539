// Round trip of the asynchronous layout.mma ({async}) and layout.mma_wait, in custom
// and generic form: a K loop whose wgmma run on under the next step (mma_wait
// {pending = 1}), the loop's result waited for after it ({pending = 0}), and a wait
// with no values (it only retires groups). The CPU reference executor runs it the same
// before and after lowering (wgmma.py: commit without a wait; wait_group 1 and 0).
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @mma_async: equivalent after 'lower-to-gpu' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance {{[0-9.e-]+}}

// CHECK-LABEL: func.func @mma_async
// CHECK:       %inflight = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>) {
// CHECK-NEXT:    %d = layout.mma %sa, %sb, %acc {async} : !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
// CHECK-NEXT:    %next = layout.mma_wait %d {pending = 1 : i64} : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
// CHECK-NEXT:    scf.yield %next
// CHECK:       %r, %r_1 = layout.mma_wait %inflight, %acc0 {pending = 0 : i64} : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
// CHECK-NEXT:  layout.mma_wait {pending = 0 : i64}

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @mma_async(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    layout.copy %a, %sa : !GA, !SA
    layout.copy %b, %sb : !GB, !SB
    layout.barrier
    %acc0 = layout.load %c : !GC -> !ACC
    %inflight = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %acc0) -> (!ACC) {
      %d = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
      %next = layout.mma_wait %d {pending = 1 : i64} : !ACC
      scf.yield %next : !ACC
    }
    %r:2 = layout.mma_wait %inflight, %acc0 {pending = 0 : i64} : !ACC, !ACC
    layout.mma_wait {pending = 0 : i64}
    %s = arith.addf %r#0, %r#1 : !ACC
    layout.store %s, %c : !ACC, !GC
  }
  func.return
}
