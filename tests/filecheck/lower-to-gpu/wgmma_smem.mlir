// layout.mma with a version-3 accumulator -> wgmma through the default pipeline: TMA
// loads into the NVMMA-swizzled tiles (A 64x16 K-major, 32-byte swizzle; B 16x64
// MN-major, 128-byte swizzle), then fence / wgmma.mma_async (descriptors fitted from
// the views: imm-trans-b 1) / commit / wait; the CPU executor agrees before and after.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: equivalent after 'default'

// CHECK-LABEL: // kernel
// CHECK:      TMA load (cp.async.bulk.tensor): box 64x16 {{.*}} swizzle 128B
// CHECK:      TMA load (cp.async.bulk.tensor): box 16x64 {{.*}} swizzle 32B
// CHECK:      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CHECK:      " wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, {{.*}}, %31}, %32, %33, p, 1, 1, 0, 1;\n}"
// CHECK:      : "l"(tilec_wgmma_desc(smem_1 + 0, 0u, 256u, 3u)), "l"(tilec_wgmma_desc(smem + 0, 0u, 1024u, 1u)), "r"(1)
// CHECK:      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CHECK:      asm volatile("wgmma.wait_group.sync.aligned 0;"
// CHECK:      // layout.mma 64x64x16 (bf16): 1 wgmma.m64n64k16 per warpgroup, A from smem; A K-major, swizzle 32B, LBO 0, SBO 256; B MN-major, swizzle 128B, LBO 0, SBO 1024
// CHECK-NOT:  tilec_fence_proxy_async();

func.func @wgmma(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sb = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
    layout.copy %b, %sb : !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
    %sa = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
    layout.copy %a, %sa : !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
    layout.barrier
    %acc0 = layout.load %c : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem> -> tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
    %d = layout.mma %sa, %sb, %acc0 : !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
    layout.store %d, %c : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  }
  func.return
}
