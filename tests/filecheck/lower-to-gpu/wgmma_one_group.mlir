// lower-to-gpu of consecutive asynchronous layout.mma on one A whose B views are
// column tiles of one shared buffer, side by side (`WgmmaLowering._run`): one
// wgmma.m64nNk16 a warpgroup and K step over all their columns (N = 128 + 64 = 192:
// chunks of unequal widths), the accumulators' registers those of its fragment in
// column order, one group (the second op commits none: `layout.mma_wait`'s `pending`
// is counted in the hardware's groups). The same ops on two shared buffers (@separate_buffers:
// their distance is not known) stay two wgmma. Equivalent on the CPU reference executor.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @unequal_chunks: equivalent after 'default' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance {{[0-9.e-]+}}
// EQ: @separate_buffers: equivalent after 'default' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance {{[0-9.e-]+}}

// CHECK-LABEL: // kernel unequal_chunks_kernels::unequal_chunks_kernel
// CHECK:       asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CHECK:       wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// CHECK-NOT:   wgmma.mma_async
// CHECK:       asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CHECK-NEXT:  // layout.mma 64x128x16 (bf16): 1 wgmma.m64n192k16 per warpgroup (with the 1 layout.mma after it: their columns), A from smem; {{.*}} B MN-major, swizzle 128B, LBO 2048, SBO 1024; async: in flight until a layout.mma_wait
// CHECK-NEXT:  // layout.mma: issued in the wgmma of the layout.mma before it
// the 96 registers of both accumulators (64 + 32) pass through the wait once:
// CHECK-NEXT:  float w = d, {{.*}}, w_95 = d_95;
// CHECK-NEXT:  asm volatile("wgmma.wait_group.sync.aligned 0;"

// CHECK-LABEL: // kernel separate_buffers_kernels::separate_buffers_kernel
// CHECK:       wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK:       // layout.mma 64x128x16 (bf16): 1 wgmma.m64n128k16 per warpgroup, A from smem;
// CHECK:       wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK:       // layout.mma 64x64x16 (bf16): 1 wgmma.m64n64k16 per warpgroup, A from smem;
// CHECK-NOT:   m64n192k16

#m128 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#m64 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!A128 = tensor<64x128xf32, #m128>
!A64 = tensor<64x64xf32, #m64>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,256):(256,1)>, gmem>
!GB128 = !layout.tensor<bf16, #layout.cute<(16,128):(256,1)>, gmem>
!GB64 = !layout.tensor<bf16, #layout.cute<(16,64):(256,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,256):(256,1)>, gmem>
!GC128 = !layout.tensor<f32, #layout.cute<(64,128):(256,1)>, gmem>
!GC64 = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SBW = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,(64,4)):(64,(1,1024))>, smem>
!SB128 = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,(64,2)):(64,(1,1024))>, smem>
!SB64 = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @unequal_chunks(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sbw = layout.alloc : !SBW
    %sb0 = layout.tile %sbw[%c0, %c0] {tile = array<i64: 16, 128>} : !SBW -> !SB128
    %sb1 = layout.tile %sbw[%c0, %c2] {tile = array<i64: 16, 64>} : !SBW -> !SB64
    %gb0 = layout.tile %b[%c0, %c0] {tile = array<i64: 16, 128>} : !GB -> !GB128
    %gb1 = layout.tile %b[%c0, %c2] {tile = array<i64: 16, 64>} : !GB -> !GB64
    %gc0 = layout.tile %c[%c0, %c0] {tile = array<i64: 64, 128>} : !GC -> !GC128
    %gc1 = layout.tile %c[%c0, %c2] {tile = array<i64: 64, 64>} : !GC -> !GC64
    layout.copy %a, %sa : !GA, !SA
    layout.copy %gb0, %sb0 : !GB128, !SB128
    layout.copy %gb1, %sb1 : !GB64, !SB64
    layout.barrier
    %x = layout.load %gc0 : !GC128 -> !A128
    %y = layout.load %gc1 : !GC64 -> !A64
    %x1 = layout.mma %sa, %sb0, %x {async} : !SA, !SB128, !A128
    %y1 = layout.mma %sa, %sb1, %y {async} : !SA, !SB64, !A64
    %w:2 = layout.mma_wait %x1, %y1 {pending = 0 : i64} : !A128, !A64
    layout.store %w#0, %gc0 : !A128, !GC128
    layout.store %w#1, %gc1 : !A64, !GC64
  }
  func.return
}

func.func @separate_buffers(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb0 = layout.alloc : !SB128
    %sb1 = layout.alloc : !SB64
    %gb0 = layout.tile %b[%c0, %c0] {tile = array<i64: 16, 128>} : !GB -> !GB128
    %gb1 = layout.tile %b[%c0, %c2] {tile = array<i64: 16, 64>} : !GB -> !GB64
    %gc0 = layout.tile %c[%c0, %c0] {tile = array<i64: 64, 128>} : !GC -> !GC128
    %gc1 = layout.tile %c[%c0, %c2] {tile = array<i64: 64, 64>} : !GC -> !GC64
    layout.copy %a, %sa : !GA, !SA
    layout.copy %gb0, %sb0 : !GB128, !SB128
    layout.copy %gb1, %sb1 : !GB64, !SB64
    layout.barrier
    %x = layout.load %gc0 : !GC128 -> !A128
    %y = layout.load %gc1 : !GC64 -> !A64
    %x1 = layout.mma %sa, %sb0, %x {async} : !SA, !SB128, !A128
    %y1 = layout.mma %sa, %sb1, %y {async} : !SA, !SB64, !A64
    %w:2 = layout.mma_wait %x1, %y1 {pending = 0 : i64} : !A128, !A64
    layout.store %w#0, %gc0 : !A128, !GC128
    layout.store %w#1, %gc1 : !A64, !GC64
  }
  func.return
}
