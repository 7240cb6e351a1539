// layout.mma with a version-3 accumulator, A from registers (#layout.dot_op<opIdx = 0,
// kWidth = 2>, loaded from global memory) and B K-major in a 64-byte-swizzled tile: two
// 64x128 tiles of a 128x256 accumulator per warpgroup, two K steps each, as
// wgmma.mma_async with 4 packed A registers (no imm-trans-a) and a B descriptor
// advancing 16 elements (32 bytes) per K step and 4096 per N tile: the base's
// descriptor plus the bytes (tilec_wgmma_desc_add).
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: equivalent after 'default'

// CHECK-LABEL: // kernel
// CHECK:      TMA load (cp.async.bulk.tensor): box 32x256 {{.*}} swizzle 64B
// CHECK:      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CHECK:      wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, {{.*}}, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}"
// CHECK:      "r"(tilec_pack_bf16x2({{.*}})), "l"(tilec_wgmma_desc(smem + 0, 0u, 512u, 2u)), "r"(1)
// CHECK:      "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(smem + 0, 0u, 512u, 2u), 32u))
// CHECK:      "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(smem + 0, 0u, 512u, 2u), 8192u))
// CHECK:      "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(smem + 0, 0u, 512u, 2u), 8224u))
// CHECK:      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CHECK:      // layout.mma 128x256x32 (bf16): 8 wgmma.m64n128k16 per warpgroup, A from registers; B K-major, swizzle 64B, LBO 0, SBO 512

func.func @wgmma(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,32):(32,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(32,256):(1,32)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128,256):(256,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sb = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<2,3,3> o 0 o (32,256):(1,32)>, smem>
    layout.copy %b, %sb : !layout.tensor<bf16, #layout.cute<(32,256):(1,32)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<2,3,3> o 0 o (32,256):(1,32)>, smem>
    %va = layout.load %a : !layout.tensor<bf16, #layout.cute<(128,32):(32,1)>, gmem> -> tensor<128x32xbf16, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>, kWidth = 2>>
    layout.barrier
    %acc0 = layout.load %c : !layout.tensor<f32, #layout.cute<(128,256):(256,1)>, gmem> -> tensor<128x256xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>>
    %d = layout.mma %va, %sb, %acc0 : tensor<128x32xbf16, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>, kWidth = 2>>, !layout.tensor<bf16, #layout.composed<swizzle<2,3,3> o 0 o (32,256):(1,32)>, smem>, tensor<128x256xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>>
    layout.store %d, %c : tensor<128x256xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>>, !layout.tensor<f32, #layout.cute<(128,256):(256,1)>, gmem>
  }
  func.return
}
