// accelerate-matmul on a target with wgmma (sm_90a): each layout.dot becomes a
// version-3 layout.mma reading NVMMA-swizzled shared buffers. A K loop of loads and
// a dot becomes the single-buffered loop a pipeliner takes (copy, copy, barrier, mma,
// barrier); remove-layout-conversions then carries the accumulator in the MMA layout.
// RUN: tilec %s -p accelerate-matmul | filecheck %s
// RUN: tilec %s -p accelerate-matmul --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p accelerate-matmul,tma,distribute,remove-layout-conversions | filecheck %s --check-prefix=RLC
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @loop_bf16: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @tile_f16_256: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @regs_a: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance

#blk = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!GA = !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):(128,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
#b8 = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
!HA = !layout.tensor<f16, #layout.cute<(128,64):(64,1)>, gmem>
!HB = !layout.tensor<f16, #layout.cute<(64,128):(128,1)>, gmem>
!HC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
#ra = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#rb = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!RA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!RB = !layout.tensor<bf16, #layout.cute<(16,32):(32,1)>, gmem>
!RC = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
module attributes {tilec.target = "sm_90a"} {

// CHECK-LABEL: func.func @loop_bf16(
// CHECK:         layout.launch
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %dot_a = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = false, shape = [64, 32]>, smem>
// CHECK-NEXT:      %dot_b = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [32, 64]>, smem>
// CHECK:           scf.for
// CHECK-NOT:         layout.load
// CHECK:             layout.copy %ta, %dot_a
// CHECK-NEXT:        layout.copy %tb, %dot_b
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:        %[[ACC:.*]] = layout.convert_layout %acc0 : {{.*}} -> tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
// CHECK-NEXT:        %[[D:.*]] = layout.mma %dot_a, %dot_b, %[[ACC]] :
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:        %d = layout.convert_layout %[[D]]
// CHECK-NEXT:        scf.yield %d
// RLC-LABEL: func.func @loop_bf16(
// RLC:         scf.for {{.*}} -> (tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>)
// RLC-NOT:       layout.convert_layout
// RLC:           layout.mma
// RLC:           scf.yield
// RLC:         layout.convert_layout
// CUDA-LABEL: // kernel loop_bf16_kernels::
// CUDA:         wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
func.func @loop_bf16(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blk>
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #blk>) {
      %ta = layout.tile %A[%bx, %k] {tile = array<i64: 64, 32>} : !GA -> !TA
      %tb = layout.tile %B[%k, %by] {tile = array<i64: 32, 64>} : !GB -> !TB
      %a = layout.load %ta : !TA -> tensor<64x32xbf16, #blk>
      %b = layout.load %tb : !TB -> tensor<32x64xbf16, #blk>
      %d = layout.dot %a, %b, %acc0 : tensor<64x32xbf16, #blk>, tensor<32x64xbf16, #blk>, tensor<64x64xf32, #blk>
      scf.yield %d : tensor<64x64xf32, #blk>
    }
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc, %tc : tensor<64x64xf32, #blk>, !TC
  }
  func.return
}

// Eight warps, one 128x128x64 tile, no loop: two warpgroups along M, no barrier
// after the mma; the tma pass makes the copies TMA loads.
// CHECK-LABEL: func.func @tile_f16_256(
// CHECK:         %dot_a = layout.alloc : !layout.tensor<f16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [128, 64]>, smem>
// CHECK-NEXT:    %dot_b = layout.alloc : !layout.tensor<f16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 128]>, smem>
// CHECK:         layout.copy %A, %dot_a
// CHECK-NEXT:    layout.copy %B, %dot_b
// CHECK-NEXT:    %acc = layout.load %C
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    layout.convert_layout %acc : {{.*}} -> tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
// CHECK-NEXT:    layout.mma %dot_a, %dot_b
// CHECK-NEXT:    %d = layout.convert_layout
// CHECK-NEXT:    layout.store %d, %C
// CUDA-LABEL: // kernel tile_f16_256_kernels::
// CUDA:         cp.async.bulk.tensor
// CUDA:         wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
func.func @tile_f16_256(%pa: !layout.ptr<f16, align 16>, %pb: !layout.ptr<f16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f16, align 16> -> !HA
  %B = layout.view %pb : !layout.ptr<f16, align 16> -> !HB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !HC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.load %A : !HA -> tensor<128x64xf16, #b8>
    %b = layout.load %B : !HB -> tensor<64x128xf16, #b8>
    %acc = layout.load %C : !HC -> tensor<128x128xf32, #b8>
    %d = layout.dot %a, %b, %acc : tensor<128x64xf16, #b8>, tensor<64x128xf16, #b8>, tensor<128x128xf32, #b8>
    layout.store %d, %C : tensor<128x128xf32, #b8>, !HC
  }
  func.return
}

// Operands computed in registers: A stays there, converted to the wgmma A fragment
// (wgmma with A from registers); B is stored into its buffer (not copied), a 32-column
// bf16 row taking a 64-byte swizzle.
// CHECK-LABEL: func.func @regs_a(
// CHECK-NOT:     %dot_a
// CHECK:         %dot_b = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = false, shape = [16, 32]>, smem>
// CHECK:         %a2 = arith.addf %a, %a
// CHECK:         %b2 = arith.addf %b, %b
// CHECK:         layout.store %b2, %dot_b
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    %[[A:.*]] = layout.convert_layout %a2 : {{.*}} -> tensor<64x16xbf16, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>, kWidth = 2>>
// CHECK:         layout.mma %[[A]], %dot_b, {{.*}} tensor<64x32xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>>
// CUDA-LABEL: // kernel regs_a_kernels::
// CUDA:         wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
func.func @regs_a(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !RA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !RB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !RC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.load %A : !RA -> tensor<64x16xbf16, #ra>
    %a2 = arith.addf %a, %a : tensor<64x16xbf16, #ra>
    %b = layout.load %B : !RB -> tensor<16x32xbf16, #rb>
    %b2 = arith.addf %b, %b : tensor<16x32xbf16, #rb>
    %acc = layout.load %C : !RC -> tensor<64x32xf32, #ra>
    %d = layout.dot %a2, %b2, %acc : tensor<64x16xbf16, #ra>, tensor<16x32xbf16, #rb>, tensor<64x32xf32, #ra>
    layout.store %d, %C : tensor<64x32xf32, #ra>, !RC
  }
  func.return
}
}
