// lower-to-gpu of the asynchronous layout.mma ({async}) and layout.mma_wait: an async
// mma ends at its commit_group (no wait: its registers are in flight); a mma_wait is
// wgmma.wait_group N through which the registers of all its operands pass once (two
// accumulators here: 64 registers); later ops read the wait's results. The loop's
// second mma waits for the first (pending = 1 leaves its own group in flight), the
// wait after the loop for both. Equivalent on the CPU reference executor.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @two_accs: equivalent after 'default' (seed 0, buffers %pa, %pb, %pc, %pd); float buffers within the layout.mma tolerance {{[0-9.e-]+}}

// CHECK-LABEL: // kernel
// CHECK:       for (int i = 0; i < 2; ++i) {
// CHECK:         asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CHECK:         wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK:         asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CHECK-NEXT:    // layout.mma 64x64x16 (bf16): 1 wgmma.m64n64k16 per warpgroup, A from smem; {{.*}}; async: in flight until a layout.mma_wait
// CHECK-NEXT:    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CHECK:         wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK:         asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CHECK-NEXT:    // layout.mma 64x64x16 (bf16): {{.*}}; async: in flight until a layout.mma_wait
// the 64 registers of both accumulators pass through the wait once:
// CHECK-NEXT:    float w = d, {{.*}}, w_63 = d_63;
// CHECK-NEXT:    asm volatile("wgmma.wait_group.sync.aligned 1;"
// CHECK:       }
// CHECK-NEXT:  float w_64 = r, {{.*}}, w_127 = {{r_[0-9]+}};
// CHECK-NEXT:  asm volatile("wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT:   wgmma.wait_group
// the store reads the wait's registers (2-element vectors of the accumulator):
// CHECK:       .v[1] = w_65;
// CHECK-NEXT:  *reinterpret_cast<f32x2*>(pc + {{t_[0-9]+}}) =

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @two_accs(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>, %pd: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %dv = layout.view %pd : !layout.ptr<f32, align 16> -> !GC
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
    %c_in = layout.load %c : !GC -> !ACC
    %d_in = layout.load %dv : !GC -> !ACC
    %out:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %c_in, %y = %d_in) -> (!ACC, !ACC) {
      %x1 = layout.mma %sa, %sb, %x {async} : !SA, !SB, !ACC
      %y1 = layout.mma %sa, %sb, %y {async} : !SA, !SB, !ACC
      %w:2 = layout.mma_wait %x1, %y1 {pending = 1 : i64} : !ACC, !ACC
      scf.yield %w#0, %w#1 : !ACC, !ACC
    }
    %r:2 = layout.mma_wait %out#0, %out#1 {pending = 0 : i64} : !ACC, !ACC
    layout.store %r#0, %c : !ACC, !GC
    layout.store %r#1, %dv : !ACC, !GC
  }
  func.return
}
