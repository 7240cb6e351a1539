// accelerate-matmul on sm_80 (mma.sync): each layout.dot becomes a version-2
// layout.mma; A and B go through NVMMA-swizzled shared buffers (copied with cp.async
// in 16-byte vectors where the global tiles allow) into dot-operand registers
// (layout.load: ldmatrix), warps tiled as Triton's warpsPerTileV2, one 16-deep slice of
// K at a time (layout.tile of the buffers; slice j + 1 loaded before the mma of slice j).
// In a K loop the last reads into registers are followed by a barrier before the next
// copies.
// RUN: tilec %s -p accelerate-matmul | filecheck %s
// RUN: tilec %s -p accelerate-matmul --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @loop_bf16: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @tile_f16_wide: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @small_f16: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQ: @replicated: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance

#blk = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b8 = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>
#s = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
!GA = !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):(128,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!HA = !layout.tensor<f16, #layout.cute<(32,64):(64,1)>, gmem>
!HB = !layout.tensor<f16, #layout.cute<(64,256):(256,1)>, gmem>
!HC = !layout.tensor<f32, #layout.cute<(32,256):(256,1)>, gmem>
!SA = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
!SB = !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem>
!SC = !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
#rc = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!RA = !layout.tensor<f16, #layout.cute<(64,16):(16,1)>, gmem>
!RB = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
!RC = !layout.tensor<f32, #layout.cute<(64,16):(16,1)>, gmem>
module attributes {tilec.target = "sm_80"} {

// CHECK-LABEL: func.func @loop_bf16(
// CHECK:         %dot_a = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = false, shape = [64, 32]>, smem>
// CHECK-NEXT:    %dot_b = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [32, 64]>, smem>
// CHECK:         scf.for
// CHECK:           layout.copy %ta, %dot_a {strategy = #layout.copy_strategy<async>}
// CHECK-NEXT:      layout.copy %tb, %dot_b {strategy = #layout.copy_strategy<async>}
// CHECK-NEXT:      layout.barrier
// CHECK-NEXT:      %[[ACC:.*]] = layout.convert_layout %acc0
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[TA0:.*]] = layout.tile %dot_a[%[[C0]], %[[C0]]] {tile = array<i64: 64, 16>}
// CHECK-NEXT:      %[[TB0:.*]] = layout.tile %dot_b[%[[C0]], %[[C0]]] {tile = array<i64: 16, 64>}
// CHECK-NEXT:      %[[A0:.*]] = layout.load %[[TA0]] : {{.*}} -> tensor<64x16xbf16, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>>
// CHECK-NEXT:      %[[B0:.*]] = layout.load %[[TB0]] : {{.*}} -> tensor<16x64xbf16, #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>>
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[TA1:.*]] = layout.tile %dot_a[%[[C0]], %[[C1]]] {tile = array<i64: 64, 16>}
// CHECK-NEXT:      %[[TB1:.*]] = layout.tile %dot_b[%[[C1]], %[[C0]]] {tile = array<i64: 16, 64>}
// CHECK-NEXT:      %[[A1:.*]] = layout.load %[[TA1]]
// CHECK-NEXT:      %[[B1:.*]] = layout.load %[[TB1]]
// CHECK-NEXT:      %[[D0:.*]] = layout.mma %[[A0]], %[[B0]], %[[ACC]]
// CHECK-NEXT:      layout.barrier
// CHECK-NEXT:      %[[D:.*]] = layout.mma %[[A1]], %[[B1]], %[[D0]]
// CHECK-NEXT:      %d = layout.convert_layout %[[D]]
// CHECK-NEXT:      scf.yield %d
// CUDA-LABEL: // kernel loop_bf16_kernels::
// CUDA:         tilec_cp_async<16>(
// CUDA:         tilec_cp_async_wait<0>();
// CUDA:         __syncthreads();
// CUDA:         ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CUDA:         ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CUDA:         mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
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

// A wide, short tile: warpsPerTileV2 puts the eight warps along N (1 x 8).
// CHECK-LABEL: func.func @tile_f16_wide(
// CHECK:         %dot_a = layout.alloc : !layout.tensor<f16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [32, 64]>, smem>
// CHECK-NEXT:    %dot_b = layout.alloc : !layout.tensor<f16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 256]>, smem>
// CHECK:         layout.mma {{.*}} tensor<32x256xf32, #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 8], instrShape = [16, 8]>>
// CUDA-LABEL: // kernel tile_f16_wide_kernels::
// CUDA:         mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @tile_f16_wide(%pa: !layout.ptr<f16, align 16>, %pb: !layout.ptr<f16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f16, align 16> -> !HA
  %B = layout.view %pb : !layout.ptr<f16, align 16> -> !HB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !HC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.load %A : !HA -> tensor<32x64xf16, #b8>
    %b = layout.load %B : !HB -> tensor<64x256xf16, #b8>
    %acc = layout.load %C : !HC -> tensor<32x256xf32, #b8>
    %d = layout.dot %a, %b, %acc : tensor<32x64xf16, #b8>, tensor<64x256xf16, #b8>, tensor<32x256xf32, #b8>
    layout.store %d, %C : tensor<32x256xf32, #b8>, !HC
  }
  func.return
}

// One warp, one m16n8k16 (a 32-byte swizzle of A's 16-element rows, plain B rows of
// 8: no swizzle fits 16 bytes).
// CHECK-LABEL: func.func @small_f16(
// CHECK:         %dot_a = layout.alloc : !layout.tensor<f16, #layout.nvmma_shared<swizzle = 32, elementBitWidth = 16, transposed = false, shape = [16, 16]>, smem>
// CHECK-NEXT:    %dot_b = layout.alloc : !layout.tensor<f16, #layout.nvmma_shared<swizzle = 0, elementBitWidth = 16, transposed = false, shape = [16, 8]>, smem>
// CHECK:         layout.mma {{.*}} tensor<16x8xf32, #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>>
// CUDA-LABEL: // kernel small_f16_kernels::
// CUDA:         mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @small_f16(%pa: !layout.ptr<f16, align 16>, %pb: !layout.ptr<f16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f16, align 16> -> !SA
  %B = layout.view %pb : !layout.ptr<f16, align 16> -> !SB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !SC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.load %A : !SA -> tensor<16x16xf16, #s>
    %b = layout.load %B : !SB -> tensor<16x8xf16, #s>
    %acc = layout.load %C : !SC -> tensor<16x8xf32, #s>
    %d = layout.dot %a, %b, %acc : tensor<16x16xf16, #s>, tensor<16x8xf16, #s>, tensor<16x8xf32, #s>
    layout.store %d, %C : tensor<16x8xf32, #s>, !SC
  }
  func.return
}

// Operands computed in registers whose layout holds each element in several threads
// (64 lanes' worth of columns over 16): stored to their buffers all the same, and the
// accumulator in another layout than the operands.
// CHECK-LABEL: func.func @replicated(
// CHECK:         layout.store %a2, %dot_a
// CHECK-NEXT:    layout.store %b2, %dot_b
// CHECK-NEXT:    layout.barrier
// CHECK:         layout.mma {{.*}} tensor<64x16xf32, #layout.nvidia_mma<version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]>>
func.func @replicated(%pa: !layout.ptr<f16, align 16>, %pb: !layout.ptr<f16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f16, align 16> -> !RA
  %B = layout.view %pb : !layout.ptr<f16, align 16> -> !RB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !RC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.load %A : !RA -> tensor<64x16xf16, #blk>
    %a2 = arith.addf %a, %a : tensor<64x16xf16, #blk>
    %b = layout.load %B : !RB -> tensor<16x16xf16, #blk>
    %b2 = arith.addf %b, %b : tensor<16x16xf16, #blk>
    %acc = layout.load %C : !RC -> tensor<64x16xf32, #rc>
    %d = layout.dot %a2, %b2, %acc : tensor<64x16xf16, #blk>, tensor<16x16xf16, #blk>, tensor<64x16xf32, #rc>
    layout.store %d, %C : tensor<64x16xf32, #rc>, !RC
  }
  func.return
}
}
